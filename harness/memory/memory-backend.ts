/**
 * The protocol on the in-memory table: carries out each declared request (lib/store/protocol) in one
 * synchronous step — conditions evaluated and writes applied together, like one DynamoDB conditional
 * write or transaction — through the worker's {@link MemoryClient} (faults, retries). It holds no
 * per-operation logic: what each write checks and sets comes from the declaration. Like a
 * TransactWriteItems carrying the SDK's ClientRequestToken, a retried transaction whose first attempt
 * was applied returns that attempt's result.
 */
import { DYNAMODB_ITEM_LIMIT_BYTES } from '../../lib/core/item-bounds.js';
import { BusinessAttr } from '../../lib/core/results.js';
import { TableEffectStore } from '../../lib/store/effect-store.js';
import { TableLeaseStore } from '../../lib/store/lease-store.js';
import { TablePauseStore } from '../../lib/store/pause-store.js';
import type { Condition } from '../../lib/store/protocol/expression.js';
import type { ProtocolOp } from '../../lib/store/protocol/ops.js';
import type {
  Item,
  KeyRange,
  ProtocolBackend,
  ProtocolRequest,
  RequestOutcome,
} from '../../lib/store/protocol/request.js';
import { TableResultStore } from '../../lib/store/result-store.js';
import { TableRunStore } from '../../lib/store/run-store.js';
import { applyUpdate, holds, putItem } from './evaluate.js';
import { type MemoryClient, MemoryConditionFailed } from './memory-db.js';

/** Which attribute of the written item the write log reports as its status. */
const STATUS_OF: Partial<Record<ProtocolOp, string>> = {
  claim: 'holderState',
  renew: 'holderState',
  release: 'holderState',
  'run-record': 'outcome',
  'mark-abandoned': 'outcome',
  'insert-once': BusinessAttr.status,
  effect: 'status',
};

const LEASE_OPS: readonly ProtocolOp[] = ['claim', 'renew', 'release'];

/**
 * Refuse an item over DynamoDB's 400 KB limit as DynamoDB does (`ValidationException: Item size has
 * exceeded the maximum allowed size`; not retryable). Size approximated by the item's JSON length.
 */
function assertItemSize(item: Item): void {
  const bytes = Buffer.byteLength(
    JSON.stringify(item, (_k, v) => (v instanceof Set ? [...v] : v)),
    'utf8',
  );
  if (bytes > DYNAMODB_ITEM_LIMIT_BYTES)
    throw Object.assign(new Error('Item size has exceeded the maximum allowed size'), {
      name: 'ValidationException',
      $metadata: { httpStatusCode: 400 },
    });
}

/** The protocol backend of a {@link MemoryClient}. */
export class MemoryBackend implements ProtocolBackend {
  constructor(private readonly client: MemoryClient) {}

  async send(request: ProtocolRequest): Promise<RequestOutcome> {
    const { tag, writes } = request;
    const transaction = writes.length > 1;
    let first: RequestOutcome | undefined;
    try {
      return await this.client.send(
        {
          command: transaction
            ? 'TransactWriteItemsCommand'
            : writes[0].kind === 'put'
              ? 'PutItemCommand'
              : 'UpdateItemCommand',
          op: tag.op,
          tag,
          input: { TableName: tag.table, Key: tag.key },
        },
        () => {
          if (transaction && first) return first;
          const db = this.client.db;
          const current = writes.map((w) => db.get(w.table, w.key));
          writes.forEach((w, index) => {
            if (!holds(w.condition, current[index]))
              throw new MemoryConditionFailed(current[index], index, transaction);
          });
          let attributes: Item | undefined;
          const nextItems = writes.map((w, index) =>
            w.kind === 'check'
              ? undefined
              : w.kind === 'put'
                ? putItem(w.item)
                : applyUpdate(current[index], w.key, w.update),
          );
          // DynamoDB refuses an item over 400 KB (the whole request, before writing anything).
          for (const next of nextItems) if (next) assertItemSize(next);
          writes.forEach((w, index) => {
            if (w.kind === 'check') return;
            const old = current[index];
            const next = nextItems[index] as Item;
            const statusAttr = STATUS_OF[tag.op];
            const fence = tag.fence ?? next.fence;
            db.put(w.table, w.key, next, {
              op: tag.op,
              ...(tag.runId !== undefined && { runId: tag.runId }),
              ...(typeof fence === 'number' && { fence }),
              ...(statusAttr !== undefined &&
                next[statusAttr] !== undefined && { status: String(next[statusAttr]) }),
              ...(LEASE_OPS.includes(tag.op) && { leaseUntilMs: Number(next.leaseUntilMs) }),
            });
            if (w.kind === 'update' && w.returnValues)
              attributes = structuredClone(w.returnValues === 'ALL_OLD' ? old : next);
          });
          first = { applied: true, ...(attributes && { attributes }) };
          return first;
        },
      );
    } catch (err) {
      if (!(err instanceof MemoryConditionFailed)) throw err;
      return { applied: false, index: err.index, item: err.item };
    }
  }

  query(table: string, range: KeyRange, filter?: Condition): Promise<Item[]> {
    return this.client.send({ command: 'QueryCommand', op: 'read', input: { TableName: table } }, () =>
      this.client.db
        .scan(table)
        .filter(
          (i) =>
            i.pk === range.pk &&
            String(i.sk) >= range.fromSk &&
            String(i.sk) <= range.toSk &&
            (filter === undefined || holds(filter, i)),
        )
        .sort((a, b) => String(a.sk).localeCompare(String(b.sk))),
    );
  }

  get(table: string, key: Item): Promise<Item | undefined> {
    return this.client.send(
      { command: 'GetItemCommand', op: 'read', input: { TableName: table, Key: key } },
      () => this.client.db.get(table, key),
    );
  }
}

/** The four stores of one worker on a {@link MemoryClient}: the same classes as on DynamoDB. */
export function memoryStores(client: MemoryClient, tableName: string) {
  const backend = new MemoryBackend(client);
  return {
    leases: new TableLeaseStore(backend, tableName),
    runs: new TableRunStore(backend, tableName),
    results: new TableResultStore(backend, tableName),
    effects: (job: string) => new TableEffectStore(backend, tableName, job),
    pauses: new TablePauseStore(backend, tableName),
  };
}
