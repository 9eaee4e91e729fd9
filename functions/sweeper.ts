/**
 * The stack's sweeper Lambda: missed-run detection and catch-up for the registry's jobs.
 */
import { sweeperHandler } from '../lib/runtime/sweeper-handler.js';
import { jobs } from './index.js';

export const handler = sweeperHandler(jobs.map((j) => j.handler));
