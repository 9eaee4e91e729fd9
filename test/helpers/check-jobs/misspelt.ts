/** A jobs module whose definition misspells a top-level option (`catchup` for `catchUp`). */
import { defineJob } from '../../../lib/runtime/define-job.js';

export const handlers = [
  defineJob({
    name: 'nightly',
    schedule: 'cron(0 3 * * ? *)',
    lease: { durationSeconds: 30 },
    // @ts-expect-error the misspelling under test: TypeScript refuses it too, a JavaScript module would not
    catchup: { mode: 'all', windowHours: 24 },
    run: async () => undefined,
  }),
];
