/**
 * Unit (in-memory store): a job context built before its claim is decided (its binding's fence a
 * placeholder) and then given the won claim by `bindClaim` shows that fence and writes under it; a
 * context `createJobContext` did not make is refused by name.
 */
import { describe, expect, it } from 'vitest';
import { createMemoryDeps } from '../../harness/drills/memory-deps.js';
import { MemoryDb } from '../../harness/memory/index.js';
import { Trigger } from '../../lib/core/outcomes.js';
import { bindClaim, createJobContext, type JobContext } from '../../lib/runtime/job-context.js';

const NOW = Date.parse('2026-03-28T01:30:05Z');

function context(): { ctx: JobContext; db: MemoryDb } {
  const db = new MemoryDb(() => NOW);
  const deps = createMemoryDeps({ db, clock: { now: () => NOW } });
  const signal = new AbortController().signal;
  const ctx = createJobContext({
    deps,
    job: 'bound',
    slot: { id: '2026-03-28T01:30', scheduledTimeMs: NOW - 5_000, businessDate: '2026-03-28' } as never,
    trigger: Trigger.Schedule,
    runId: 'run-1',
    fence: 0,
    abort: { signal, race: (body) => body },
    run: { remainingTimeMs: () => 60_000, pause: async () => undefined, emit: () => undefined },
    details: {},
  });
  return { ctx, db };
}

describe('bindClaim', () => {
  it('gives a context built during the claim the won fence: shown, and on every write', async () => {
    const { ctx, db } = context();
    expect(ctx.fence).toBe(0);
    bindClaim(ctx, 7, undefined);
    expect(ctx.fence).toBe(7);
    expect({ ...ctx }.fence).toBe(7);
    await ctx.fencedPut('reports', { reportDate: '2026-03-28' }, { body: 'daily' });
    expect(db.get('reports', { reportDate: '2026-03-28' })?.['cronfence:fence']).toBe(7);
  });

  it('refuses a context it did not make (a spread copy), naming the call', () => {
    const { ctx } = context();
    expect(() => bindClaim({ ...ctx }, 7, undefined)).toThrow(
      new TypeError('bindClaim: not a context made by createJobContext'),
    );
    expect(ctx.fence).toBe(0);
  });
});
