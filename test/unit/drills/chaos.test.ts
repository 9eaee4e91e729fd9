/**
 * `npm start -- --chaos`: the seeded fault mix is reproducible and touches the protocol's writes only.
 */
import { describe, expect, it } from 'vitest';
import { createChaos, seededRandom } from '../../../harness/faults/chaos.js';
import { MemoryClient, MemoryDb, memoryStores } from '../../../harness/memory/index.js';

async function claims(seed: number): Promise<Record<string, number>> {
  const chaos = createChaos(seed, { throttle: 0.3, lostResponse: 0.2, slow: 0, pause: 0 });
  const db = new MemoryDb();
  const leases = memoryStores(new MemoryClient(db, { faults: chaos.injector }), 'lib').leases;
  for (let i = 0; i < 40; i++) {
    await leases
      .claim({ job: `j${i}`, runId: `r${i}`, slotId: 'S', nowMs: 1, leaseUntilMs: 2 })
      .catch(() => undefined);
    await leases.get({ job: `j${i}` });
  }
  return chaos.counts();
}

describe('seeded chaos', () => {
  it('makes the same decisions for the same seed and different ones for another', async () => {
    expect(await claims(7)).toEqual(await claims(7));
    expect(await claims(7)).not.toEqual(await claims(8));
    expect(Array.from({ length: 3 }, seededRandom(1))).toEqual(Array.from({ length: 3 }, seededRandom(1)));
  });

  it('injects throttles and lost responses on claims and never on reads', async () => {
    const counts = await claims(7);
    expect(Object.keys(counts).sort()).toEqual(['lost-response:claim', 'throttle:claim']);
    expect(Object.keys(counts).some((k) => k.endsWith(':read'))).toBe(false);
  });
});
