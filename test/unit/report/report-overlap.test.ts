/**
 * The report page names the job's overlap policy (unit, pure: `reportMeta` → recordingFromRecords →
 * renderTimeline): its header shows the same token `cronfence jobs` shows, for every policy, beside the
 * job, schedule and range (the escaped `>` of `replace(>300s)` included). How the page draws buffered,
 * replaced and waiting occurrences: overlap-timeline.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { reportMeta } from '../../../cli/report.js';
import { recordingFromRecords } from '../../../harness/report/from-records.js';
import { renderTimeline } from '../../../harness/report/timeline.js';
import { defineJob } from '../../../lib/runtime/define-job.js';

const NOW = Date.parse('2026-01-15T00:00:00Z');
const at = (iso: string) => Date.parse(iso);
const handler = (overlap: unknown) =>
  defineJob({
    name: 'settle',
    schedule: 'rate(5 minutes)',
    lease: { durationSeconds: 60 },
    timeoutSeconds: 600,
    ...(overlap !== undefined && { overlap: overlap as never }),
    run: async () => undefined,
  });

const meta = (h: ReturnType<typeof handler>) =>
  reportMeta(h, {
    fromMs: at('2026-01-14T00:00:00Z'),
    toMs: at('2026-01-14T23:59:59Z'),
    nowMs: NOW,
    source: 'DynamoDB Local http://127.0.0.1:8000',
    runRecords: 3,
    effects: 0,
  });

/** Records of a day under an overlap policy: a replaced holder, a buffered arrival and its run, a waiting slot. */
const runs = [
  { slot: '2026-01-14T10:00:00Z', runId: 'r1', fence: 1, outcome: 'stale', reason: 'replaced' },
  { slot: '2026-01-14T10:05:00Z', runId: 'r2', outcome: 'buffered', reason: 'overlap' },
  { slot: '2026-01-14T10:05:00Z', runId: 'r3', fence: 2, outcome: 'succeeded', trigger: 'catch-up' },
  { slot: '2026-01-14T10:10:00Z', runId: 'r4', outcome: 'skipped', reason: 'waiting-for-previous' },
].map((r, i) => ({
  trigger: 'schedule',
  scheduledTime: `${r.slot.slice(0, 19)}.000Z`,
  startedAtMs: at(r.slot) + 1000 + i,
  finishedAtMs: at(r.slot) + 60_000,
  ...r,
}));

describe('the report and the overlap policy', () => {
  it.each([
    [undefined, 'skip'],
    ['buffer-one', 'buffer-one'],
    [{ policy: 'buffer-all', maxBuffered: 4 }, 'buffer-all(4)'],
    ['replace', 'replace'],
    [{ policy: 'replace', replaceAfterSeconds: 300 }, 'replace(>300s)'],
    ['after-previous', 'after-previous(problem >600s)'],
  ])('shows %j in the page header as %s', (overlap, label) => {
    const h = handler(overlap);
    expect(meta(h)).toEqual({
      job: 'settle',
      schedule: 'rate(5 minutes) (UTC)',
      overlap: label,
      range: '2026-01-14T00:00:00Z .. 2026-01-14T23:59:59Z',
      source: 'DynamoDB Local http://127.0.0.1:8000',
      'run records': 3,
      effects: 0,
    });
    const html = renderTimeline(
      recordingFromRecords({
        definition: h.job,
        runs,
        effects: [],
        lease: undefined,
        title: 't',
        meta: meta(h),
      }),
    );
    expect(html).toContain(
      `<dt>schedule</dt><dd>rate(5 minutes) (UTC)</dd><dt>overlap</dt><dd>${label.replace('>', '&gt;')}</dd>`,
    );
  });
});
