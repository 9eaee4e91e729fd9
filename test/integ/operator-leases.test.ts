/**
 * Operator writes on a job's lease are conditioned on what the operator was shown (integ, in process
 * on the operator API, on DynamoDB Local): `trigger` and `backfill` are refused while a live run holds
 * the lease (LeaseBusyError), naming the holder and when its lease ends, and invoke nothing;
 * `previewTrigger` (`trigger --dry-run`) shows the lease's version; `expect` with a version the lease
 * no longer has refuses `trigger`, `backfill`, `pause` and `resume` (LeaseChangedError), naming the
 * lease as it is now, and changes nothing. One refusal runs through the binary: its line and exit 1.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { exitCodeFor } from '../../cli/exit-codes.js';
import { pauseText, resumeText } from '../../cli/pause.js';
import { previewText } from '../../cli/trigger.js';
import { DynamoLeaseStore } from '../../lib/store/lease-store.js';
import type { Operator } from '../../operate/operator.js';
import { type LocalStack, localStack } from '../helpers/local-stack.js';
import { cli, stackEnv } from './cli-harness.js';
import { operatorOn, rejection } from './operate-harness.js';

const JOB = 'daily-report';
const by = 'ops-alice';
let stack: LocalStack;
let op: Operator;

beforeEach(async () => {
  stack = await localStack();
  op = operatorOn(stack);
});
afterEach(() => op?.close());

const iso = (ms: number) => `${new Date(ms).toISOString().slice(0, 19)}Z`;
const leaseItem = async () =>
  (await stack.scan(stack.tableName)).find((i) => i.pk === `JOB#${JOB}` && i.sk === 'LEASE');
const backfillDay = { from: '2026-03-27', to: '2026-03-27', requestedBy: 'ops', reason: 'x', local: true };

/** A live run `r-live` holding the job's lease for 10 minutes from now. */
async function liveHolder(): Promise<number> {
  const nowMs = Date.now();
  const leaseUntilMs = nowMs + 10 * 60_000;
  const leases = new DynamoLeaseStore(stack.doc, stack.tableName);
  const r = await leases.claim({ job: JOB, runId: 'r-live', slotId: '2026-03-28', nowMs, leaseUntilMs });
  expect(r.kind).toBe('acquired');
  return leaseUntilMs;
}

describe('operator writes on a lease', () => {
  it('refuses trigger and backfill while a live run holds the lease, naming it; nothing is invoked', async () => {
    const until = await liveHolder();
    const before = await leaseItem();
    const refusal = `job ${JOB}: lease JOB#${JOB} is held by run r-live (slot 2026-03-28, fence 1) until ${iso(until)}: nothing invoked (a manual run now would only be recorded skipped / lease-held); wait until that run records its outcome or its lease ends (cronfence lease ${JOB}), then retry`;
    const t = await rejection(op.job(JOB).trigger({ local: true, requestedBy: by }));
    expect([t.name, t.message, exitCodeFor(t)]).toEqual(['LeaseBusyError', refusal, 1]);
    const b = await rejection(op.job(JOB).backfill(backfillDay));
    expect([b.name, b.message, exitCodeFor(b)]).toEqual(['LeaseBusyError', refusal, 1]);
    // The binary prints the same refusal as one line and exits 1.
    const spawned = await cli(['trigger', JOB, '--local'], stackEnv(stack, { CRONFENCE_OPERATOR: by }));
    expect([spawned.code, spawned.stdout, spawned.stderr]).toEqual([1, '', `cronfence: ${refusal}\n`]);
    expect(await stack.runRecords(JOB)).toEqual([]);
    expect(await leaseItem()).toEqual(before);
    // The read-only view shows the holder and the version instead of refusing.
    const dry = await op.job(JOB).previewTrigger({ slot: '2026-03-27T02:30', requestedBy: by });
    expect(previewText(dry).split('\n')[0]).toMatch(
      new RegExp(
        `^Dry run: ${JOB} slot 2026-03-27T02:30 \\(scheduled \\S+Z\\); lease version 1:-; held by run r-live \\(slot 2026-03-28\\) until ${iso(until)}; nothing invoked\\.$`,
      ),
    );
  }, 120_000);

  it('refuses trigger, backfill, pause and resume with a version the lease no longer has; changes nothing', async () => {
    const job = op.job(JOB);
    const dry = await job.previewTrigger({ slot: '2026-03-27T02:30', requestedBy: by });
    expect(previewText(dry)).toMatch(/lease version -:-; no live holder; nothing invoked\.\n/);
    expect(previewText(dry).split('\n')[1]).toBe(
      `Run it: cronfence trigger ${JOB} --slot 2026-03-27T02:30 --expect -:-`,
    );
    const paused = await job.pause({ note: 'INC-7', by, expect: '-:-' });
    const item = await leaseItem();
    const pausedAtMs = Number(item?.pausedAtMs);
    expect(pauseText(paused).split('\n')[0]).toBe(
      `paused ${JOB} (1 lease item) by ops-alice at ${iso(pausedAtMs)}: "INC-7"; lease version -:- -> -:${pausedAtMs}`,
    );
    const changed = `job ${JOB}: its lease changed since version -:- was shown: it is now version -:${pausedAtMs} (fence -, no holder, paused by ops-alice at ${new Date(pausedAtMs).toISOString()}): nothing changed; look again and retry with the version shown now`;
    for (const call of [
      () => job.trigger({ local: true, requestedBy: by, expect: '-:-' }),
      () => job.backfill({ ...backfillDay, expect: '-:-' }),
      () => job.pause({ note: 'again', by, expect: '-:-' }),
      () => job.resume({ by, expect: '-:-' }),
    ]) {
      const err = await rejection(call());
      expect([err.name, err.message, exitCodeFor(err)]).toEqual(['LeaseChangedError', changed, 1]);
    }
    expect(await leaseItem()).toEqual(item);
    expect(await stack.runRecords(JOB)).toEqual([]);
    const resumed = await job.resume({ by, expect: `-:${pausedAtMs}` });
    if (!resumed.resumed) throw new Error('not resumed');
    expect(resumeText(resumed).split('\n')[0]).toBe(
      `resumed ${JOB}: paused by ops-alice at ${iso(pausedAtMs)} ("INC-7"); lease version -:${pausedAtMs} -> -:-`,
    );
  }, 120_000);
});
