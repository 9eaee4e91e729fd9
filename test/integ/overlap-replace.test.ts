/**
 * Overlap policy replace (integ: DynamoDB Local; the Lambda invocations are in-process handler calls on
 * a frozen test clock; the effect provider is an in-process one that answers as a provider with
 * idempotency keys does): the newest occurrence takes the lease from a live holder by raising the fence;
 * the displaced holder wakes and its fenced write, insert-once and effect are all refused — its writes
 * check the lease in the same transaction, so even a row of its own slot that no other run writes is
 * refused — nothing is executed twice, and its record says `stale / replaced`.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import type { EffectProvider } from '../../lib/core/effects.js';
import type { OverlapOption } from '../../lib/core/overlap.js';
import { effectRunner } from '../../lib/runtime/effect-runner.js';
import type { JobContext } from '../../lib/runtime/job-context.js';
import { type LocalStack, localStack } from '../helpers/local-stack.js';
import {
  frozenClock,
  type Gate,
  gate,
  heldFor,
  ID,
  invoke,
  leaseOf,
  overlapJob,
  rows,
  T,
} from '../helpers/overlap-scenario.js';

let stack: LocalStack;
beforeEach(async () => {
  stack = await localStack();
});

/** A provider that executes each key at most once (idempotency keys), noting every send. */
function ledger() {
  const sends: string[] = [];
  const executed = new Set<string>();
  const provider: EffectProvider<{ amountCents: number }> = {
    name: 'ledger',
    idempotencyKeys: true,
    keyRetentionMs: Number.POSITIVE_INFINITY,
    send: async (key) => {
      sends.push(key);
      executed.add(key);
      return { kind: 'succeeded', providerRef: `ref-${key}`, response: { ok: true } };
    },
  };
  return { sends, executed, provider };
}

/** Try each protected operation, noting what it did: `written`, `inserted`, `existing`, or the error name. */
async function protectedWork(
  ctx: JobContext,
  provider: EffectProvider<{ amountCents: number }>,
  out: string[],
) {
  const tries: [string, () => Promise<unknown>][] = [
    ['fencedPut', () => ctx.fencedPut(stack.reports, { reportDate: 'R' }, { by: ctx.runId })],
    ['insertOnce', () => ctx.insertOnce(stack.reports, { reportDate: 'K' }, { by: ctx.runId })],
    ['effect', () => ctx.effect('E', { amountCents: 100 }, provider)],
    // A row of the run's own slot, which no other run writes: only the lease check can refuse it.
    [
      'insertOnce (own slot)',
      () => ctx.insertOnce(stack.reports, { reportDate: `own ${ctx.slot.id}` }, { by: ctx.runId }),
    ],
  ];
  let first: unknown;
  for (const [name, op] of tries) {
    try {
      const r = (await op()) as { status?: string; source?: string } | undefined;
      out.push(`${name}: ${r?.status ?? r?.source ?? 'written'}`);
    } catch (err) {
      out.push(`${name}: ${(err as Error).name}`);
      first ??= err;
    }
  }
  if (first) throw first;
}

function replacing(name: string, overlap: OverlapOption) {
  const clock = frozenClock();
  const w = stack.worker({ clock });
  const calls: string[] = [];
  const gates = new Map<string, Gate>([[ID('10:00'), gate()]]);
  const l = ledger();
  const byRun = new Map<string, string[]>();
  const job = overlapJob(
    name,
    overlap,
    calls,
    gates,
    async (ctx) => {
      const out: string[] = [];
      byRun.set(ctx.slot.id, out);
      await protectedWork(ctx, l.provider, out);
    },
    { effects: effectRunner },
  ).withDeps(() => w.deps);
  return { clock, calls, job, l, byRun, wake: () => gates.get(ID('10:00'))?.open() };
}

async function row(key: string) {
  return (await stack.scan(stack.reports)).find((r) => r.reportDate === key);
}

describe('overlap: replace', () => {
  it('displaces a stuck holder; the woken holder’s fenced write, insert-once and effect are refused and nothing runs twice', async () => {
    const s = replacing('ov-replace', 'replace');
    const holder = invoke(s.job, s.clock, '10:00');
    await heldFor(stack, 'ov-replace', ID('10:00'));
    const newest = await invoke(s.job, s.clock, '10:03');
    expect(newest).toMatchObject({ outcome: 'succeeded', fence: 2 });
    expect(s.byRun.get(ID('10:03'))).toEqual([
      'fencedPut: written',
      'insertOnce: inserted',
      'effect: succeeded',
      'insertOnce (own slot): inserted',
    ]);
    expect(await leaseOf(stack, 'ov-replace')).toMatchObject({
      owner: newest.runId,
      fence: 2,
      replacedFence: 1,
      holderState: 'released',
    });
    // The displaced holder wakes at 10:05 and tries every protected operation.
    s.clock.setTo(Date.parse('2026-05-01T10:05:00Z'));
    s.wake();
    const displaced = await holder;
    expect(displaced).toMatchObject({ outcome: 'stale', reason: 'replaced', fence: 1 });
    expect(s.byRun.get(ID('10:00'))).toEqual([
      'fencedPut: StaleFenceError',
      'insertOnce: StaleFenceError',
      'effect: StaleFenceError',
      'insertOnce (own slot): StaleFenceError',
    ]);
    // Refused by the lease check in the same transaction: its own slot's row was never written.
    expect(await row(`own ${ID('10:00')}`)).toBeUndefined();
    expect(await row(`own ${ID('10:03')}`)).toMatchObject({ by: newest.runId, 'cronfence:fence': 2 });
    expect(s.l.sends).toEqual(['E']);
    expect(s.calls).toEqual([ID('10:00'), ID('10:03')]);
    expect(await row('R')).toMatchObject({ by: newest.runId, 'cronfence:fence': 2 });
    expect(await row('K')).toMatchObject({ by: newest.runId, 'cronfence:fence': 2 });
    expect((await leaseOf(stack, 'ov-replace'))?.replacedRunId).toBe(displaced.runId);
    expect(await rows(stack, 'ov-replace')).toEqual([
      `${ID('10:00')} schedule stale/replaced 1`,
      `${ID('10:03')} schedule succeeded/- 2`,
    ]);
  });

  it('with replaceAfterSeconds, skips arrivals while the holder is younger, then replaces it', async () => {
    const s = replacing('ov-replace-after', { policy: 'replace', replaceAfterSeconds: 240 });
    const holder = invoke(s.job, s.clock, '10:00');
    await heldFor(stack, 'ov-replace-after', ID('10:00'));
    const young = await invoke(s.job, s.clock, '10:03');
    expect(young).toMatchObject({ outcome: 'skipped', reason: 'overlap' });
    const old = await invoke(s.job, s.clock, '10:06');
    expect(old).toMatchObject({ outcome: 'succeeded', fence: 2 });
    s.clock.setTo(Date.parse('2026-05-01T10:07:00Z'));
    s.wake();
    expect(await holder).toMatchObject({ outcome: 'stale', reason: 'replaced', fence: 1 });
    expect(s.l.sends).toEqual(['E']);
    expect(s.calls).toEqual([ID('10:00'), ID('10:06')]);
    expect(await rows(stack, 'ov-replace-after')).toEqual([
      `${ID('10:00')} schedule stale/replaced 1`,
      `${ID('10:03')} schedule skipped/overlap -`,
      `${ID('10:06')} schedule succeeded/- 2`,
    ]);
  });

  it('the newest wins a race: an arrival whose replace lost to an older arrival replaces that one in turn', async () => {
    const clock = frozenClock();
    const w = stack.worker({ clock });
    const calls: string[] = [];
    const gates = new Map<string, Gate>([
      [ID('10:00'), gate()],
      [ID('10:03'), gate()],
    ]);
    // 10:06 saw 10:00 holding; before its replace is sent, 10:03 replaces 10:00 (the race).
    let middle: Promise<unknown> | undefined;
    const leases = new Proxy(w.deps.leases, {
      get(target, prop, receiver) {
        const v = Reflect.get(target, prop, receiver);
        if (prop !== 'replace' || typeof v !== 'function')
          return typeof v === 'function' ? v.bind(target) : v;
        return async (req: { slotId: string }) => {
          if (req.slotId === ID('10:06') && middle === undefined) {
            middle = invoke(job, clock, '10:03', { clockAt: T('10:06') });
            await heldFor(stack, 'ov-replace-race', ID('10:03'));
          }
          return v.call(target, req);
        };
      },
    });
    const job = overlapJob('ov-replace-race', 'replace', calls, gates).withDeps(() => ({
      ...w.deps,
      leases,
    }));
    const first = invoke(job, clock, '10:00');
    await heldFor(stack, 'ov-replace-race', ID('10:00'));
    const newest = await invoke(job, clock, '10:06');
    expect(newest).toMatchObject({ outcome: 'succeeded', fence: 3 });
    gates.get(ID('10:03'))?.open();
    gates.get(ID('10:00'))?.open();
    expect(await middle).toMatchObject({ outcome: 'stale', reason: 'replaced', fence: 2 });
    // 10:00 was displaced by 10:03, itself displaced by 10:06: the lease item's chain of displacements
    // (fences 1..2) still names it, so it too is recorded replaced, not stale-fence.
    expect(await first).toMatchObject({ outcome: 'stale', reason: 'replaced', fence: 1 });
    expect(calls).toEqual([ID('10:00'), ID('10:03'), ID('10:06')]);
    expect(await leaseOf(stack, 'ov-replace-race')).toMatchObject({
      owner: newest.runId,
      fence: 3,
      replacedFence: 2,
      replacedFromFence: 1,
      holderState: 'released',
    });
  });
});
