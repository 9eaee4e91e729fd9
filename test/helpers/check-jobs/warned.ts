/** A jobs module whose definitions pass but are warned about: a daily rate across Berlin DST, a short lease. */
import { defineJob } from '../../../lib/runtime/define-job.js';

export const handlers = [
  defineJob({
    name: 'rate-berlin',
    schedule: 'rate(1 day)',
    timeZone: 'Europe/Berlin',
    rateAnchor: '2026-01-01T22:30:00Z',
    lease: { durationSeconds: 5 },
    run: async () => undefined,
  }),
];
