/**
 * The in-memory store passes the same contract suite as the DynamoDB stores (unit: no network).
 */
import { FaultInjector } from '../../../harness/faults/sdk-faults.js';
import { MemoryClient, MemoryDb, memoryStores } from '../../../harness/memory/index.js';
import { storeContracts } from '../../helpers/contracts/index.js';

storeContracts('memory store', async () => {
  const db = new MemoryDb();
  const faults = new FaultInjector();
  const client = new MemoryClient(db, { faults });
  const stores = memoryStores(client, 'lib');
  return {
    ...stores,
    effects: stores.effects('contract-job'),
    tableName: 'lib',
    reports: 'reports',
    settlements: 'settlements',
    faults,
    read: async (table, key) => db.get(table, key),
    putRaw: async (table, item) => {
      const key =
        table === 'settlements'
          ? { merchantId: item.merchantId, settlementDate: item.settlementDate }
          : { reportDate: item.reportDate };
      db.put(table, key, item, { op: 'other' });
    },
  };
});
