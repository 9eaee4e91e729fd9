/**
 * The report's picture of stored records (unit, pure: recordingFromRecords → timelineModel): a holder
 * that died holding the lease, marked abandoned by its successor with its own claim time, and the
 * effect it created, which the successor took over — each transition in the lane of the run that made it.
 */
import { describe, expect, it } from 'vitest';
import { effectTransitions, recordingFromRecords } from '../../../harness/report/from-records.js';
import { timelineModel } from '../../../harness/report/timeline-model.js';
import { defineJob } from '../../../lib/runtime/define-job.js';

const at = (iso: string) => Date.parse(iso);
const job = defineJob({
  name: 'payouts',
  schedule: 'cron(0 9 * * ? *)',
  timeZone: 'Europe/Berlin',
  lease: { durationSeconds: 60 },
  run: async () => {},
});

/** The dead holder's abandon mark (as a claimer writes it) and its successor's record. */
const runs = [
  {
    slot: '2026-03-11T09:00',
    runId: 'dead-run',
    trigger: 'manual',
    requestedBy: 'ops-alice',
    fence: 2,
    outcome: 'abandoned',
    reason: 'not-released',
    startedAtMs: at('2026-03-11T08:00:01Z'),
    finishedAtMs: at('2026-03-11T08:02:00Z'),
    details: {
      detectedBy: 'successor-run',
      detectedAtMs: at('2026-03-11T08:02:00Z'),
      leaseUntilMs: at('2026-03-11T08:01:01Z'),
    },
  },
  {
    slot: '2026-03-11T09:00',
    scheduledTime: '2026-03-11T08:00:00.000Z',
    runId: 'successor-run',
    trigger: 'retry',
    attemptNumber: 2,
    fence: 3,
    outcome: 'succeeded',
    startedAtMs: at('2026-03-11T08:02:00Z'),
    finishedAtMs: at('2026-03-11T08:02:03Z'),
  },
];
/** Created by the dead run, taken over and settled by its successor. */
const effect = {
  key: 'pay#2026-03-11T09:00',
  status: 'succeeded',
  attempts: 2,
  fence: 3,
  runId: 'successor-run',
  createdAtMs: at('2026-03-11T08:00:30Z'),
  sendingAtMs: at('2026-03-11T08:02:01Z'),
  finishedAtMs: at('2026-03-11T08:02:02Z'),
};

describe('the report of stored records', () => {
  const model = timelineModel(
    recordingFromRecords({
      definition: job.job,
      runs,
      effects: [effect],
      lease: undefined,
      title: 't',
      meta: {},
    }),
  );

  it('draws the dead holder from its own claim, unrecorded, and its successor', () => {
    expect(
      model.lanes.map((l) => [
        l.slot,
        l.worker,
        l.runId,
        l.fence,
        l.holder,
        new Date(l.startMs).toISOString(),
        l.outcome,
      ]),
    ).toEqual([
      ['2026-03-11T09:00', 'manual:ops-alice', 'dead-run', 2, true, '2026-03-11T08:00:01.000Z', 'running'],
      ['2026-03-11T09:00', 'retry#2', 'successor-run', 3, true, '2026-03-11T08:02:00.000Z', 'succeeded'],
    ]);
    expect(model.lanes[0]?.endMs).toBeUndefined();
    expect(model.events.find((e) => e.text.startsWith('marked'))).toMatchObject({
      atMs: at('2026-03-11T08:02:00Z'),
      text: 'marked ad-run abandoned (slot 2026-03-11T09:00)',
    });
    expect(model.timeZone).toBe('Europe/Berlin');
  });

  it("puts the effect's creation in the dead run's lane and the take-over and outcome in the successor's", () => {
    expect(model.lanes.map((l) => l.marks.map((m) => m.label))).toEqual([
      ['pay#2026-03-11T09:00: - → sending'],
      [
        'pay#2026-03-11T09:00: sending → sending (taken over, attempt 2)',
        'pay#2026-03-11T09:00: sending → succeeded',
      ],
    ]);
  });

  it('keeps an unsettled effect sending, with the error the provider gave', () => {
    expect(
      effectTransitions(
        {
          ...effect,
          status: 'sending',
          attempts: 1,
          sendingAtMs: effect.createdAtMs,
          finishedAtMs: undefined,
          lastError: { httpStatus: 503, message: 'upstream timeout' },
        },
        [{ runId: 'dead-run', fromMs: at('2026-03-11T08:00:01Z'), toMs: at('2026-03-11T08:01:01Z') }],
      ),
    ).toEqual([
      {
        atMs: effect.createdAtMs,
        runId: 'dead-run',
        from: '-',
        to: 'sending',
        note: 'HTTP 503: upstream timeout',
      },
    ]);
  });
});
