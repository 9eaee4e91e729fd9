#!/usr/bin/env node
// `npx cronfence`: run the TypeScript CLI through tsx's loader (no build step).
import { register } from 'tsx/esm/api';

register();
await import('./cronfence.ts');
