/**
 * unit: the timeline report draws what an overlap policy did, each distinctly and in the legend: a
 * buffered occurrence (hollow square), a holder displaced by `replace` (double bar at its record), an
 * occurrence waiting for its predecessor (hourglass); a plain skip keeps its dot.
 */
import { describe, expect, it } from 'vitest';
import type { Recorded } from '../../../harness/report/recording.js';
import { renderTimeline } from '../../../harness/report/timeline.js';
import type { RunSummary } from '../../../lib/runtime/run-summary.js';

const T0 = Date.parse('2026-01-05T00:00:00Z');
const base = { job: 'ex-settle', trigger: 'schedule' as const };

function claimed(runId: string, slot: string, fence: number, atMs: number): Recorded {
  return {
    kind: 'runtime',
    atMs,
    worker: 'A',
    event: {
      ...base,
      slot,
      runId,
      fence,
      atMs,
      type: 'claim-won',
      leaseUntilMs: atMs + 60_000,
      ownWrite: false,
    },
  };
}

function finished(runId: string, slot: string, atMs: number, outcome: string, reason?: string): Recorded {
  const summary = {
    ...base,
    slot,
    scheduledTime: slot,
    runId,
    outcome,
    ...(reason && { reason }),
    durationMs: 0,
  } as unknown as RunSummary;
  return {
    kind: 'runtime',
    atMs,
    worker: 'B',
    event: { ...base, slot, runId, atMs, type: 'finish', summary },
  };
}

const legendOf = (html: string) => [...html.matchAll(/data-legend="([a-z-]+)"/g)].map((m) => m[1]);

describe('timeline: overlap outcomes', () => {
  it('draws buffered, replaced and waiting occurrences, each named in the legend', () => {
    const html = renderTimeline({
      title: 'overlap',
      meta: {},
      entries: [
        claimed('run-aaaaaa', '00:00', 1, T0),
        claimed('run-bbbbbb', '00:05', 2, T0 + 300_000),
        finished('run-aaaaaa', '00:00', T0 + 301_000, 'stale', 'replaced'),
        finished('run-cccccc', '00:10', T0 + 600_000, 'buffered'),
        finished('run-dddddd', '00:15', T0 + 900_000, 'skipped', 'waiting-for-previous'),
        finished('run-bbbbbb', '00:05', T0 + 960_000, 'succeeded'),
      ],
    });
    expect(legendOf(html)).toEqual(['holder', 'past-lease', 'buffered', 'replaced', 'waiting']);
    expect(html).toContain(
      '<span data-legend="buffered" style="color:#00838f">□ buffered (waits on the lease item, runs when the holder releases)</span>',
    );
    expect(html).toContain(
      '<span data-legend="replaced" style="color:#ef6c00">‖ displaced by a newer occurrence (stale / replaced)</span>',
    );
    expect(html).toContain(
      '<span data-legend="waiting" style="color:#6d4c41">⧗ waiting for the previous occurrence (after-previous)</span>',
    );
    expect([...html.matchAll(/class="overlap ([a-z]+)"/g)].map((m) => m[1])).toEqual([
      'replaced',
      'buffered',
      'waiting',
    ]);
    expect(html).toContain('<title>run-cccccc: buffered at 2026-01-05 00:10:00Z</title>');
    expect(html).not.toContain('class="skip"');
  });

  it('keeps the dot of a plain skip', () => {
    const html = renderTimeline({
      title: 'skip',
      meta: {},
      entries: [
        claimed('run-aaaaaa', '00:00', 1, T0),
        finished('run-eeeeee', '00:05', T0 + 1000, 'skipped', 'overlap'),
      ],
    });
    expect(legendOf(html)).toEqual(['killed', 'skip']);
    expect(html).not.toContain('class="overlap');
  });
});
