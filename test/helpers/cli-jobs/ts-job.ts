/** One job, in TypeScript, for the jobs module beside it. */
import { defineJob } from '../../../lib/runtime/define-job.js';

export const handler = defineJob({
  name: 'ts-nightly',
  schedule: 'cron(0 3 * * ? *)',
  timeZone: 'Europe/Berlin',
  lease: { durationSeconds: 60 },
  timeoutSeconds: 120,
  run: async (ctx): Promise<void> => {
    const note: string = `for ${ctx.businessDate}`;
    void note;
  },
});
