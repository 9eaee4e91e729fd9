/**
 * What each overlap policy costs per invocation (integ: DynamoDB Local, requests counted at the SDK by
 * the fault injector): the normal path stays at 3 writes / 0 reads per successful run and 2 / 0 per
 * duplicate for every policy; buffering, replacing and waiting cost what their own paths add.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import type { OverlapOption } from '../../lib/core/overlap.js';
import { type LocalStack, localStack } from '../helpers/local-stack.js';
import {
  frozenClock,
  type Gate,
  gate,
  heldFor,
  ID,
  invoke,
  overlapJob,
} from '../helpers/overlap-scenario.js';

let stack: LocalStack;
beforeEach(async () => {
  stack = await localStack();
});

/** Writes / reads one invocation sent (Put, Update, Transact / Get, Query). */
function meter(faults: { requests: Map<string, number> }) {
  const count = (re: RegExp) =>
    [...faults.requests].filter(([c]) => re.test(c)).reduce((n, [, k]) => n + k, 0);
  let base = { w: 0, r: 0 };
  return {
    start: () => {
      base = { w: count(/Put|Update|Transact/), r: count(/Get|Query/) };
    },
    cost: () => `${count(/Put|Update|Transact/) - base.w} W / ${count(/Get|Query/) - base.r} R`,
  };
}

const POLICIES: [string, OverlapOption | undefined][] = [
  ['skip', undefined],
  ['buffer-one', 'buffer-one'],
  ['buffer-all', { policy: 'buffer-all', maxBuffered: 3 }],
  ['replace', 'replace'],
  ['after-previous', 'after-previous'],
];

describe('overlap: protocol cost per invocation', () => {
  it.each(POLICIES)(
    '%s: a successful run costs 3 W / 0 R and a duplicate 2 W / 0 R',
    async (name, overlap) => {
      const clock = frozenClock();
      const w = stack.worker({ clock });
      const job = overlapJob(`cost-${name}`, overlap, [], new Map()).withDeps(() => w.deps);
      const m = meter(w.faults);
      m.start();
      expect(await invoke(job, clock, '10:00')).toMatchObject({ outcome: 'succeeded' });
      expect(m.cost()).toBe('3 W / 0 R');
      m.start();
      expect(await invoke(job, clock, '10:00', { attempt: 2 })).toMatchObject({
        reason: 'already-succeeded',
      });
      expect(m.cost()).toBe('2 W / 0 R');
    },
  );

  it.each([
    ['skip', undefined, 'skipped/overlap', '2 W / 0 R'],
    ['buffer-one', 'buffer-one', 'buffered/overlap', '3 W / 0 R'],
    ['replace', 'replace', 'succeeded/-', '4 W / 0 R'],
    ['after-previous', 'after-previous', 'skipped/waiting-for-previous', '2 W / 0 R'],
  ] as [string, OverlapOption | undefined, string, string][])(
    '%s: an arrival under a live holder ends %s at %s',
    async (name, overlap, outcome, cost) => {
      const clock = frozenClock();
      const w = stack.worker({ clock });
      const gates = new Map<string, Gate>([[ID('10:00'), gate()]]);
      const job = overlapJob(`arrive-${name}`, overlap, [], gates).withDeps(() => w.deps);
      const holder = invoke(job, clock, '10:00');
      await heldFor(stack, `arrive-${name}`, ID('10:00'));
      const m = meter(w.faults);
      m.start();
      const s = await invoke(job, clock, '10:03');
      expect(`${s.outcome}/${s.reason ?? '-'}`).toBe(outcome);
      expect(m.cost()).toBe(cost);
      gates.get(ID('10:00'))?.open();
      await holder;
    },
  );

  it('buffer-one: a duplicate of the buffered slot and a buffer-full arrival cost 2 W / 0 R each', async () => {
    const clock = frozenClock();
    const w = stack.worker({ clock });
    const gates = new Map<string, Gate>([[ID('10:00'), gate()]]);
    const job = overlapJob('arrive-full', 'buffer-one', [], gates).withDeps(() => w.deps);
    const holder = invoke(job, clock, '10:00');
    await heldFor(stack, 'arrive-full', ID('10:00'));
    await invoke(job, clock, '10:03');
    const m = meter(w.faults);
    for (const [hhmm, attempt, outcome] of [
      ['10:03', 2, 'skipped/lease-held'],
      ['10:06', 1, 'skipped/buffer-full'],
    ] as const) {
      m.start();
      const s = await invoke(job, clock, hhmm, { attempt });
      expect(`${s.outcome}/${s.reason}`).toBe(outcome);
      expect(m.cost()).toBe('2 W / 0 R');
    }
    gates.get(ID('10:00'))?.open();
    await holder;
  });
});
