/** unit: the occurrence's trace id is a pure function of the job key and the slot id. */
import { describe, expect, it } from 'vitest';
import { occurrenceIds, occurrenceSpanContext } from '../../../lib/entries/tracing.js';

describe('occurrenceIds', () => {
  it('derives the same ids for the same job and slot, in any process', () => {
    expect(occurrenceIds('daily-report', '2026-03-28T02:30')).toEqual({
      traceId: '0dd756278309d568a90e2c3cc3b11d81',
      rootSpanId: '7b8de85930e965b9',
    });
  });

  it.each([
    ['another slot', 'daily-report', '2026-03-29T02:30'],
    ['another job', 'merchant-settlement', '2026-03-28T02:30'],
    ['the same text split elsewhere', 'daily-report2026-03-28T02:3', '0'],
  ])('derives another trace for %s', (_what, job, slot) => {
    expect(occurrenceIds(job, slot).traceId).not.toBe('0dd756278309d568a90e2c3cc3b11d81');
  });

  it('parents attempts by a sampled remote span context', () => {
    expect(occurrenceSpanContext('daily-report', '2026-03-28T02:30')).toEqual({
      traceId: '0dd756278309d568a90e2c3cc3b11d81',
      spanId: '7b8de85930e965b9',
      traceFlags: 1,
      isRemote: true,
    });
  });
});
