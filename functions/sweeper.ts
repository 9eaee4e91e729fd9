/**
 * The stack's sweeper Lambda: missed-run detection and catch-up for the example jobs.
 */
import { sweeperHandler } from '../lib/runtime/sweeper-handler.js';
import { handlers } from './index.js';

export const handler = sweeperHandler(Object.values(handlers));
