/**
 * The DynamoDB stores pass the store contract suite on DynamoDB Local (the same suite the in-memory
 * store passes in test/unit/drills).
 */
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { DynamoEffectStore } from '../../lib/store/effect-store.js';
import { DynamoPauseStore } from '../../lib/store/pause-store.js';
import { storeContracts } from '../helpers/contracts/index.js';
import { localStack } from '../helpers/local-stack.js';

storeContracts('DynamoDB stores', async () => {
  const stack = await localStack();
  const { deps, faults } = stack.worker();
  return {
    leases: deps.leases,
    runs: deps.runs,
    results: deps.results,
    effects: new DynamoEffectStore(deps.doc, stack.tableName, 'contract-job'),
    pauses: new DynamoPauseStore(deps.doc, stack.tableName),
    tableName: stack.tableName,
    reports: stack.reports,
    settlements: stack.settlements,
    faults,
    read: async (table, key) =>
      (await stack.doc.send(new GetCommand({ TableName: table, Key: key, ConsistentRead: true }))).Item,
    putRaw: async (table, item) => {
      await stack.doc.send(new PutCommand({ TableName: table, Item: item }));
    },
  };
});
