/**
 * The pure pause rules (lib/core/pause.ts): when a stored pause is in force (the same instant rule as
 * the claim's `notPaused` condition), the bounds on what an operator stores, and the failure streak
 * `pauseOnFailure` counts.
 */
import { describe, expect, it } from 'vitest';
import {
  failurePause,
  MAX_PAUSE_NOTE_CHARS,
  nextFailedSlots,
  PAUSED_BY_FAILURES,
  pauseInForce,
  validatePause,
} from '../../lib/core/pause.js';
import { InvalidArgumentError } from '../../lib/errors.js';

const T = 1_780_000_000_000;

describe('pauseInForce', () => {
  it('holds from the write through pausedUntilMs inclusive, like the claim condition `pausedUntilMs < now`', () => {
    const item = { pausedAtMs: T, pausedBy: 'ops', pauseNote: 'n', pausedUntilMs: T + 10 };
    expect(pauseInForce(item, T + 10)).toEqual({ by: 'ops', atMs: T, note: 'n', untilMs: T + 10 });
    expect(pauseInForce(item, T + 11)).toBeUndefined();
    expect(pauseInForce({}, T)).toBeUndefined();
    expect(pauseInForce({ pausedAtMs: T, pausedBy: 'ops', pauseNote: 'n' }, T + 1e12)).toEqual({
      by: 'ops',
      atMs: T,
      note: 'n',
    });
  });
});

describe('validatePause', () => {
  it('trims and accepts 1 to 200 characters; refuses the rest naming the field and value', () => {
    expect(validatePause({ note: ' INC-1 ', by: ' ops ' }, T)).toEqual({ note: 'INC-1', by: 'ops' });
    expect(() => validatePause({ note: 'x'.repeat(MAX_PAUSE_NOTE_CHARS + 1), by: 'ops' }, T)).toThrow(
      /^invalid note "x+.*: must be 1 to 200 characters/,
    );
    expect(() => validatePause({ note: 'n', by: '' }, T)).toThrow(InvalidArgumentError);
    expect(() => validatePause({ note: 'n', by: 'ops', untilMs: T }, T)).toThrow(
      'invalid untilMs "2026-05-28T20:26:40.000Z": must be in the future',
    );
  });
});

describe('the pauseOnFailure streak', () => {
  it('counts a retry of one occurrence once, keeps the newest N, and pauses at the N-th naming the runs', () => {
    let s = nextFailedSlots(undefined, { slot: 'A', runId: 'a1' }, 3);
    s = nextFailedSlots(s, { slot: 'A', runId: 'a2' }, 3);
    s = nextFailedSlots(s, { slot: 'B', runId: 'b1' }, 3);
    expect(s).toEqual([
      { slot: 'A', runId: 'a2' },
      { slot: 'B', runId: 'b1' },
    ]);
    expect(failurePause(s, 3, T)).toBeUndefined();
    s = nextFailedSlots(s, { slot: 'C', runId: 'c1' }, 3);
    expect(failurePause(s, 3, T)).toEqual({
      pausedAtMs: T,
      pausedBy: PAUSED_BY_FAILURES,
      pauseNote: 'paused after 3 consecutive failed occurrences: A, B, C',
      pausedRuns: ['a2', 'b1', 'c1'],
    });
    expect(nextFailedSlots(s, { slot: 'D', runId: 'd1' }, 3).map((f) => f.slot)).toEqual(['B', 'C', 'D']);
  });
});
