/** A job firing every hour on the hour in UTC (24 slots a day), for range and plan tests. */
import { defineJob } from '../../lib/runtime/define-job.js';

export const hourly = defineJob({
  name: 'hourly',
  schedule: 'cron(0 * * * ? *)',
  timeZone: 'UTC',
  lease: { durationSeconds: 60 },
  timeoutSeconds: 120,
  run: async () => undefined,
});
