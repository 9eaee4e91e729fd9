/** The arbitrary of one injected fault of a history (history.ts). */
import fc from 'fast-check';
import type { PausePointName } from '../../../lib/runtime/deps.js';
import { FAULT_OPS, type HistoryFault } from './history.js';

const PAUSE_POINTS: readonly PausePointName[] = ['after-claim', 'before-write', 'before-finish'];

/** One fault on a worker drawn from `worker`: pauses, kills, throttles, lost responses, partitions, ... */
export function faultArbitrary(worker: fc.Arbitrary<number>): fc.Arbitrary<HistoryFault> {
  const op = fc.constantFrom(...FAULT_OPS);
  return fc.oneof(
    fc.record({
      kind: fc.constant('pause' as const),
      worker,
      at: fc.constantFrom(...PAUSE_POINTS),
      nth: fc.integer({ min: 1, max: 3 }),
      ms: fc.oneof(fc.integer({ min: 1, max: 5_000 }), fc.integer({ min: 30_000, max: 150_000 })),
      freeze: fc.boolean(),
    }),
    fc.record({
      kind: fc.constant('kill' as const),
      worker,
      at: fc.constantFrom(...PAUSE_POINTS),
      nth: fc.integer({ min: 1, max: 3 }),
    }),
    // a few throttles (absorbed by SDK retries) or a long throttling episode (the step fails for minutes)
    fc.record({
      kind: fc.constant('throttle' as const),
      worker,
      op,
      times: fc.oneof(fc.integer({ min: 1, max: 6 }), fc.integer({ min: 20, max: 400 })),
    }),
    fc.record({ kind: fc.constant('lost-response' as const), worker, op }),
    fc.record({
      kind: fc.constant('conflict' as const),
      worker,
      op,
      times: fc.oneof(fc.integer({ min: 1, max: 4 }), fc.integer({ min: 8, max: 20 })),
    }),
    {
      // weighted up: the only in-budget way a stale write reaches the store (the fence's own test)
      arbitrary: fc.record({
        kind: fc.constant('partition' as const),
        worker,
        ms: fc.integer({ min: 61_000, max: 150_000 }),
      }),
      weight: 4,
    },
    fc.record({
      kind: fc.constant('slow-request' as const),
      worker,
      op,
      // up to 90 s: a request stuck in the network past its lease (and a takeover): the fence decides
      ms: fc.oneof(fc.integer({ min: 10, max: 5_000 }), fc.integer({ min: 30_000, max: 90_000 })),
    }),
  );
}
