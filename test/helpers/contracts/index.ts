/**
 * Store contract suites: one set of tests every LeaseStore / RunStore / ResultStore implementation
 * passes (docs/design.md "Conventions" 2). Run against DynamoDB Local (test/integ) and in memory (test/unit).
 */

import { effectStoreContract } from './effect-store.contract.js';
import type { StoreFixture } from './fixture.js';
import { leaseStoreContract } from './lease-store.contract.js';
import { overlapContract } from './overlap.contract.js';
import { pauseContract } from './pause.contract.js';
import { runAndResultStoreContract } from './run-result.contract.js';

export type { StoreFixture } from './fixture.js';

/** Define every store contract test for one implementation. */
export function storeContracts(name: string, make: () => Promise<StoreFixture>): void {
  leaseStoreContract(name, make);
  runAndResultStoreContract(name, make);
  effectStoreContract(name, make);
  pauseContract(name, make);
  overlapContract(name, make);
}
