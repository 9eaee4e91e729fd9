/**
 * Overlap policy after-previous when a success's release never lands (integ: DynamoDB Local; in-process
 * handler calls on a frozen test clock; the release refused by injected throttling, as DynamoDB answers
 * `ProvisionedThroughputExceededException`). The lease then knows of no success: without the recovery
 * an earlier slot taking the expired lease would claim on "nothing succeeded yet" and succeed after the
 * chain started. The claimer finds the holder's own succeeded record (its abandoned mark refused, one
 * read), counts that slot as done, records itself waiting-for-previous, and its release puts the slot
 * in the done set, so the next slot runs.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { on, throttlingError } from '../../harness/faults/sdk-faults.js';
import { type LocalStack, localStack } from '../helpers/local-stack.js';
import { frozenClock, ID, invoke, leaseOf, overlapJob, rows, T } from '../helpers/overlap-scenario.js';

let stack: LocalStack;
beforeEach(async () => {
  stack = await localStack();
});

describe('overlap: after-previous, a success whose release never landed', () => {
  it('is counted by the next claimer: an earlier slot waits, the next one runs, each slot runs once', async () => {
    const clock = frozenClock();
    const throttled = stack.worker({ clock });
    const healthy = stack.worker({ clock });
    throttled.faults.add({
      name: 'release throttled',
      match: on.release,
      action: { kind: 'fail', error: throttlingError },
      times: 1_000,
    });
    const calls: string[] = [];
    const job = (w: typeof healthy) =>
      overlapJob('ov-after-release', 'after-previous', calls, new Map()).withDeps(() => w.deps);
    // The first run of the job: 10:03 (nothing succeeded yet), recorded succeeded, release refused.
    expect(await invoke(job(throttled), clock, '10:03')).toMatchObject({ outcome: 'succeeded', fence: 1 });
    expect(await leaseOf(stack, 'ov-after-release')).toMatchObject({ holderState: 'running', fence: 1 });
    // After its lease (900 s) ended, a late 10:00 takes the lease over: 10:03 counts as done.
    const early = await invoke(job(healthy), clock, '10:00', { clockAt: T('10:20') });
    expect(early).toMatchObject({ outcome: 'skipped', reason: 'waiting-for-previous', fence: 2 });
    const record = (await stack.runRecords('ov-after-release')).find((r) => r.runId === early.runId);
    expect(record?.details).toMatchObject({ recoveredSucceeded: [ID('10:03')] });
    expect(await leaseOf(stack, 'ov-after-release')).toMatchObject({
      holderState: 'released',
      lastSucceeded: ID('10:03'),
      fence: 2,
    });
    expect(((await leaseOf(stack, 'ov-after-release'))?.doneSlots as Set<string> | undefined)?.size).toBe(1);
    // 10:06's predecessor is done: it runs.
    expect(await invoke(job(healthy), clock, '10:06', { clockAt: T('10:21') })).toMatchObject({
      outcome: 'succeeded',
      fence: 3,
    });
    expect(calls).toEqual([ID('10:03'), ID('10:06')]);
    expect(await rows(stack, 'ov-after-release')).toEqual([
      `${ID('10:00')} schedule skipped/waiting-for-previous 2`,
      `${ID('10:03')} schedule succeeded/- 1`,
      `${ID('10:06')} schedule succeeded/- 3`,
    ]);
  }, 120_000);
});
