/** A jobs module whose one job fails: its run record carries the error `trigger` must print. */
import { defineJob } from '../../../lib/runtime/define-job.js';

export const handlers = [
  defineJob({
    name: 'fails-always',
    schedule: 'cron(0 4 * * ? *)',
    timeZone: 'UTC',
    lease: { durationSeconds: 30 },
    timeoutSeconds: 60,
    run: async () => {
      throw new Error('payments answered 503');
    },
  }),
];
