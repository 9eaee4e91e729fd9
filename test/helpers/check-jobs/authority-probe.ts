/**
 * A jobs module naming the authority tests' probe job (test/integ/authority.test.ts), so that the CLI's
 * `--job authority-probe` is a job of the registry it is given (`--jobs`). The body never runs here.
 */
import { defineJob } from '../../../lib/runtime/define-job.js';

export const handlers = [
  defineJob({
    name: 'authority-probe',
    schedule: 'rate(1 day)',
    lease: { durationSeconds: 60 },
    timeoutSeconds: 60,
    run: async () => undefined,
  }),
];
