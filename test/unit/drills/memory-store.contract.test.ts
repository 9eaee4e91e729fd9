/**
 * The in-memory store passes the same contract suite as the DynamoDB stores (unit: no network).
 */
import { FaultInjector } from '../../../lib/faults/sdk-faults.js';
import {
  MemoryClient,
  MemoryDb,
  MemoryEffectStore,
  MemoryLeaseStore,
  MemoryResultStore,
  MemoryRunStore,
} from '../../../lib/store/memory/index.js';
import { storeContracts } from '../../helpers/contracts/index.js';

storeContracts('memory store', async () => {
  const db = new MemoryDb();
  const faults = new FaultInjector();
  const client = new MemoryClient(db, { faults });
  return {
    leases: new MemoryLeaseStore(client, 'lib'),
    runs: new MemoryRunStore(client, 'lib'),
    results: new MemoryResultStore(client, 'lib'),
    effects: new MemoryEffectStore(client, 'lib', 'contract-job'),
    tableName: 'lib',
    reports: 'reports',
    settlements: 'settlements',
    faults,
    read: async (table, key) => db.get(table, key),
    putRaw: async (table, item) => {
      db.put(table, { reportDate: item.reportDate }, item, { op: 'other' });
    },
  };
});
