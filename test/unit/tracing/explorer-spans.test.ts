/**
 * unit (in-memory store, virtual time, in-memory span exporter): seeded explorer histories — the
 * Lambda model (retries after errors and timeouts, the sweeper's catch-ups, redeploys, shard runs) and
 * the listed model with its safety shapes (kills, pauses past the lease, lost responses, operators) —
 * run with every handler and worker traced: every invariant of the explorer still holds, every run
 * record has exactly one attempt span with its outcome, and every attempt of a slot is in that slot's
 * trace.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { memoryBackend } from '../../../harness/drills/explorer/backends.js';
import { historyArbitrary } from '../../../harness/drills/explorer/history.js';
import { checkInvariants } from '../../../harness/drills/explorer/invariants.js';
import { runHistory } from '../../../harness/drills/explorer/run-history.js';
import { CLOCK_SKEW_BUDGET_MS } from '../../../lib/core/lease.js';
import { attemptMismatches, attemptSpans, tracedStage } from '../../helpers/trace-invariant.js';

describe('traces of explorer histories', () => {
  it.each([
    // The overlap shapes (buffered occurrences) are generated under the Lambda model only.
    [
      'the Lambda model',
      'lambda' as const,
      11,
      ['successor', 'sweeper'],
      ['abandoned', 'buffered', 'failed', 'skipped', 'stale', 'succeeded'],
    ],
    [
      'the listed model with the safety shapes',
      'listed' as const,
      12,
      ['successor'],
      ['abandoned', 'failed', 'skipped', 'stale', 'succeeded'],
    ],
  ])(
    '%s: one attempt span per run record, same outcome, in the slot trace',
    async (_name, model, seed, by, expectedOutcomes) => {
      const specs = fc.sample(historyArbitrary({ model }), { seed, numRuns: 30 });
      const outcomes = new Set<string>();
      const recordedBy = new Set<string>();
      let records = 0;
      let spans = 0;
      for (const spec of specs) {
        const t = tracedStage();
        const outcome = await runHistory(spec, memoryBackend, { stage: t.stage });
        const finished = t.exporter.getFinishedSpans();
        // Tracing changes nothing the protocol does: every safety and liveness invariant still holds.
        const broken = checkInvariants(outcome, CLOCK_SKEW_BUDGET_MS).filter((c) => !c.ok);
        expect(broken.map((c) => `${c.name}: ${c.detail}`)).toEqual([]);
        expect(
          attemptMismatches(outcome.records, finished, outcome.lostWithRestore),
          JSON.stringify(spec),
        ).toEqual([]);
        records += outcome.records.length;
        spans += attemptSpans(finished).length;
        for (const r of outcome.records) outcomes.add(String(r.outcome));
        for (const a of attemptSpans(finished)) {
          const by = a.attributes['cronfence.recorded_by'];
          if (by !== undefined) recordedBy.add(String(by).startsWith('sweeper') ? 'sweeper' : 'successor');
        }
      }
      // Every outcome occurs, and so do records written for a run by another writer.
      expect([...outcomes].sort()).toEqual(expectedOutcomes);
      expect([...recordedBy].sort()).toEqual(by);
      expect(spans).toBeGreaterThanOrEqual(records);
    },
    120_000,
  );
});
