/**
 * A TypeScript jobs module as a team writes one: type annotations, and `./ts-job.js` naming the
 * `.ts` file beside it (as tsc resolves it under NodeNext).
 */
import type { JobHandler } from '../../../lib/runtime/define-job.js';
import { handler as nightly } from './ts-job.js';

export const handlers: JobHandler[] = [nightly];
