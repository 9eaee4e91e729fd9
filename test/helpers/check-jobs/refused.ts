/** A jobs module with a definition `defineJob` refuses at import: Feb 30 never comes. */
import { defineJob } from '../../../lib/runtime/define-job.js';

export const handlers = [
  defineJob({
    name: 'never',
    schedule: 'cron(0 0 30 2 ? *)',
    lease: { durationSeconds: 30 },
    run: async () => undefined,
  }),
];
