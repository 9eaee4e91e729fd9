/**
 * Unit (no network): run ids (lib/runtime/run-summary.ts). Each id's random part is drawn for it alone:
 * inline when none is drawn ahead, else the bytes a finished run drew in an immediate; never the same
 * bytes twice, however ids and draws interleave.
 */
import { setImmediate as turn } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { drawNextRunIdRandom, newRunId } from '../../lib/runtime/run-summary.js';

describe('run ids', () => {
  it('are time-ordered and random, one set of random bytes each, drawn ahead or inline', async () => {
    const nowMs = Date.parse('2026-03-28T17:00:00Z');
    const ids: string[] = [];
    for (let i = 0; i < 3_000; i++) {
      ids.push(newRunId(nowMs + i));
      // Some runs finish (the next id's bytes drawn in an immediate), some ids follow each other.
      if (i % 3 === 0) drawNextRunIdRandom();
      if (i % 3 === 1) drawNextRunIdRandom();
      if (i % 5 !== 0) await turn();
    }
    expect(ids[0]).toBe(`${nowMs.toString(36).padStart(9, '0')}-${ids[0]?.slice(10)}`);
    for (const id of ids) expect(id).toMatch(/^[0-9a-z]{9}-[0-9a-f]{10}$/);
    expect(new Set(ids.map((id) => id.slice(10))).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(ids);
  });
});
