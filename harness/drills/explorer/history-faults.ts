/**
 * A history's faults, applied to one worker (a Lambda environment): pauses, freezes, kills, throttling,
 * lost responses, slow requests, partitions and transaction conflicts.
 */

import type { RuntimeDeps } from '../../../lib/runtime/deps.js';
import { forever } from '../../faults/pause-points.js';
import {
  on,
  throttlingError,
  timeoutError,
  transactionCanceledByConflict,
  transactionConflictError,
} from '../../faults/sdk-faults.js';
import type { Stage, Worker } from '../stage.js';
import type { HistorySpec } from './history.js';

function partition(w: Worker, ms: number): void {
  let until = Number.NEGATIVE_INFINITY;
  const cut = () => w.clock.time.nowMs < until;
  w.faults.add({
    name: `partition ${ms} ms: first business write stuck`,
    match: (r) => {
      if (!on.businessWrite(r) || until !== Number.NEGATIVE_INFINITY) return false;
      until = w.clock.time.nowMs + ms;
      return true;
    },
    action: { kind: 'delay', ms },
  });
  w.faults.add({
    name: 'partition: request fails',
    match: (r) => cut() && !on.businessWrite(r),
    action: { kind: 'fail', error: () => timeoutError('injected: partitioned from DynamoDB') },
    times: 1_000_000,
  });
}

/** Apply the spec's faults of worker `i`; `replace` spawns a fresh environment after a kill. */
export function applyFaults(spec: HistorySpec, i: number, w: Worker, replace: () => void): void {
  for (const f of spec.faults) {
    if (f.worker !== i) continue;
    let seen = 0;
    const nth = 'nth' in f ? f.nth : 0;
    const when = () => ++seen === nth;
    if (f.kind === 'pause') {
      w.pauses.add({
        name: `${f.freeze ? 'freeze' : 'slow'} ${f.ms} ms at ${f.at} #${f.nth}`,
        at: f.at,
        when,
        action: () => (f.freeze ? w.suspend(f.ms) : w.clock.sleep(f.ms)),
      });
    } else if (f.kind === 'kill') {
      w.pauses.add({
        name: `kill at ${f.at} #${f.nth}`,
        at: f.at,
        when,
        action: async () => {
          w.kill();
          replace();
          return forever();
        },
      });
    } else if (f.kind === 'throttle') {
      w.faults.add({
        name: `throttle ${f.op} x${f.times}`,
        match: on.op(f.op),
        action: { kind: 'fail', error: throttlingError },
        times: f.times,
      });
    } else if (f.kind === 'partition') {
      partition(w, f.ms);
    } else if (f.kind === 'conflict') {
      w.faults.add({
        name: `${f.op} transaction conflict x${f.times}`,
        match: on.op(f.op),
        action: {
          kind: 'fail',
          error: f.op === 'effect' ? () => transactionCanceledByConflict() : transactionConflictError,
        },
        times: f.times,
      });
    } else if (f.kind === 'lost-response') {
      w.faults.add({
        name: `${f.op} response lost`,
        match: on.op(f.op),
        action: { kind: 'apply-then-fail' },
      });
    } else {
      w.faults.add({
        name: `${f.op} slow ${f.ms} ms`,
        match: on.op(f.op),
        action: { kind: 'delay', ms: f.ms },
      });
    }
  }
}

/**
 * The history's workers on a stage, each with its faults and its safety shapes' clocks (a lookup
 * worker skewed past the budget, a freeze that stops the clock: both named in `offBudgetWorkers`); a
 * killed environment is replaced by a fresh one (no faults) for later deliveries.
 * @returns the current worker of each index (updated in place).
 */
export function spawnWorkers(spec: HistorySpec, s: Stage, offBudgetWorkers = new Set<string>()): Worker[] {
  const shapes = spec.shapes;
  const current: Worker[] = [];
  const generation = spec.skewsMs.map(() => 0);
  const spawn = (i: number) => {
    const skewed = shapes?.skewedLookup?.worker === i ? shapes.skewedLookup.skewMs : undefined;
    const w = s.worker(`W${i}${generation[i] ? `.${generation[i]}` : ''}`, skewed ?? spec.skewsMs[i] ?? 0);
    current[i] = w;
    if (skewed !== undefined) offBudgetWorkers.add(w.name);
    if (generation[i] === 0 && shapes?.frozenClock?.worker === i) {
      const f = shapes.frozenClock;
      offBudgetWorkers.add(w.name);
      let seen = 0;
      w.pauses.add({
        name: `freeze with the clock ${f.ms} ms at ${f.at}`,
        at: f.at,
        when: () => ++seen === 1,
        action: () => w.suspend(f.ms, { clockFrozen: true }),
      });
    }
    if (generation[i] === 0)
      applyFaults(spec, i, w, () => {
        generation[i] = (generation[i] ?? 0) + 1;
        spawn(i);
      });
  };
  for (let i = 0; i < spec.skewsMs.length; i++) spawn(i);
  return current;
}

/** A same-slot skip that is final: the holder always looks alive (the broken variant). */
export function skipIsFinal(deps: RuntimeDeps): RuntimeDeps {
  return {
    ...deps,
    leases: {
      ...deps.leases,
      claim: async (req) => {
        const d = await deps.leases.claim(req);
        return d.kind === 'held' ? { ...d, renewedAtMs: req.nowMs } : d;
      },
      renew: (r) => deps.leases.renew(r),
      release: (r) => deps.leases.release(r),
      releaseIfOwner: (r) => deps.leases.releaseIfOwner(r),
      get: (r) => deps.leases.get(r),
    },
  };
}
