/** unit: the occurrence's trace id is a pure function of the job key and the slot id. */
import { describe, expect, it } from 'vitest';
import { occurrenceIds, occurrenceSpanContext } from '../../../lib/entries/tracing.js';

describe('occurrenceIds', () => {
  it('derives the same ids for the same job and slot, in any process', () => {
    expect(occurrenceIds('daily-report', '2026-03-28T02:30')).toEqual({
      traceId: '69c678480dd756278309d568a90e2c3c',
      rootSpanId: '7b8de85930e965b9',
    });
  });

  it.each([
    ['another slot', 'daily-report', '2026-03-29T02:30'],
    ['another job', 'merchant-settlement', '2026-03-28T02:30'],
    ['the same text split elsewhere', 'daily-report2026-03-28T02:3', '0'],
  ])('derives another trace for %s', (_what, job, slot) => {
    expect(occurrenceIds(job, slot).traceId).not.toBe('69c678480dd756278309d568a90e2c3c');
  });

  it('starts the trace id with the slot time less 14 h in epoch seconds (X-Ray layout), else all hash', () => {
    // The slot 2026-03-28T17:00Z less 14 h: 2026-03-28T03:00Z. (0x69c67848 above: 2026-03-28T02:30 less 14 h.)
    expect(occurrenceIds('daily-report', '2026-03-28T17:00Z').traceId.slice(0, 8)).toBe(
      (Date.parse('2026-03-28T03:00:00Z') / 1000).toString(16),
    );
    expect(occurrenceIds('daily-report', 'no-date').traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(occurrenceIds('daily-report', 'no-date').traceId.slice(0, 8)).not.toMatch(/^69c6/);
  });

  it('parents attempts by a sampled remote span context', () => {
    expect(occurrenceSpanContext('daily-report', '2026-03-28T02:30')).toEqual({
      traceId: '69c678480dd756278309d568a90e2c3c',
      spanId: '7b8de85930e965b9',
      traceFlags: 1,
      isRemote: true,
    });
  });
});
