/**
 * An operator's manual run of a slot before the job's start (unit: in memory): the history the
 * explorer shrank (`first-deploy` — an older scheduler paid slot 0 before the deploy; `operator-race` —
 * an operator backfills slot 0 of the deployed job with catch-up `all` and `catchUp.since` at the
 * deploy) paid `pay#2026-01-05T00:00:00Z#1` and `#2` twice. The operators, as the CLI does, refuse it
 * (`beforeStartRefusal`): every invariant holds and each provider key is executed once, by the older
 * scheduler.
 */
import { describe, expect, it } from 'vitest';
import { memoryBackend } from '../../../harness/drills/explorer/backends.js';
import { replayHistory } from '../../../harness/drills/explorer/explore.js';
import type { HistorySpec } from '../../../harness/drills/explorer/history.js';
import { runHistory } from '../../../harness/drills/explorer/run-history.js';
import { beforeStartRefusal } from '../../../lib/core/schedule/catch-up.js';

/** The shrunk history of `explore --runs 1500 --seed 3` (path 69:0:…:2, after 55 shrinks). */
const SHRUNK: HistorySpec = JSON.parse(
  '{"skewsMs":[0,0],"provider":{"idempotencyKeys":false,"lookup":false,"dropResponses":[]},"workMs":0,"deliveries":[{"job":"report","slot":0,"worker":0,"delayMs":0,"attempt":1,"manual":true}],"faults":[],"shapes":{"parallelBody":false,"mixedWrites":false,"lookupOnly":false,"operatorRace":{"latencyMs":40,"dropResponses":[],"failBeforeExecution":[1],"actions":[{"kind":"backfill","slot":0,"row":0,"thinkMs":0,"pauseMs":1000,"atMs":0}]},"lifecycle":{"kind":"first-deploy","atSlot":1,"span":1}}}',
);

describe('manual runs before the job start', () => {
  it('the shrunk first-deploy backfill holds every invariant: the operator is refused', async () => {
    expect((await replayHistory(SHRUNK)).filter((c) => !c.ok)).toEqual([]);
    const outcome = await runHistory(SHRUNK, memoryBackend);
    // The backfill's two manual runs (slot 0 twice: the slot before it does not exist) are both refused.
    expect(outcome.operators?.map((e) => [e.kind, e.result])).toEqual([
      ['trigger', 'refused BeforeStart'],
      ['trigger', 'refused BeforeStart'],
    ]);
  }, 120_000);

  it('refuses a slot before catchUp.since, naming it, the instant and why; the flag or a later slot runs', () => {
    const sinceMs = Date.parse('2026-01-05T00:01:00Z');
    const slot = (id: string) => ({ id, scheduledTimeMs: Date.parse(id) });
    const early = [slot('2026-01-05T00:00:00Z'), slot('2026-01-04T23:50:00Z'), slot('2026-01-05T00:10:00Z')];
    expect(beforeStartRefusal({ sinceMs }, early)).toEqual({
      slotId: '2026-01-04T23:50:00Z',
      count: 2,
      sinceMs,
      message:
        "slot 2026-01-04T23:50:00Z (and 1 more slot(s) before it) is before the job's start (catchUp.since 2026-01-05T00:01:00Z): it may have been paid by the scheduler this job replaced; nothing invoked; check it was not paid, then pass `beforeStart: true` to run it",
    });
    expect(beforeStartRefusal({ sinceMs }, early, { allowBeforeStart: true })).toBeUndefined();
    // The floor itself is the job's: a slot at catchUp.since runs, as the sweeper's catch-up does.
    expect(beforeStartRefusal({ sinceMs }, [slot('2026-01-05T00:01:00Z')])).toBeUndefined();
    expect(beforeStartRefusal({}, early)).toBeUndefined();
    expect(beforeStartRefusal(undefined, early)).toBeUndefined();
  });
});
