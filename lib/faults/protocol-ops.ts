/**
 * Which protocol step (DESIGN.md protocol 1–6) a store request belongs to, read from the request
 * itself, so fault rules and traces name steps (`claim`, `renew`, ...) rather than SDK commands.
 */
import { INSERT_ONCE, RUN_RECORD_ABANDON, TAKEOVER } from '../store/conditions.js';

/** A protocol step, or `read` / `other`. */
export const ProtocolOp = {
  Claim: 'claim',
  Renew: 'renew',
  Release: 'release',
  RunRecord: 'run-record',
  MarkAbandoned: 'mark-abandoned',
  FencedWrite: 'fenced-write',
  InsertOnce: 'insert-once',
  Takeover: 'takeover',
  Effect: 'effect',
  Read: 'read',
  Other: 'other',
} as const;
/** Union of {@link ProtocolOp} values. */
export type ProtocolOp = (typeof ProtocolOp)[keyof typeof ProtocolOp];

/** Every protocol step a fault can be injected at, in protocol order. */
export const PROTOCOL_STEPS: readonly ProtocolOp[] = [
  ProtocolOp.Claim,
  ProtocolOp.Renew,
  ProtocolOp.FencedWrite,
  ProtocolOp.InsertOnce,
  ProtocolOp.RunRecord,
  ProtocolOp.Release,
];

/** Classify a DynamoDB request (low-level command name + marshalled or plain input). */
export function protocolOpOf(command: string, input: Record<string, unknown>): ProtocolOp {
  const update = String(input.UpdateExpression ?? '');
  const condition = String(input.ConditionExpression ?? '');
  const keyText = JSON.stringify(input.Key ?? input.Item ?? input.TransactItems ?? {});
  if (/^(GetItem|Query|Scan|BatchGetItem)Command$/.test(command)) return ProtocolOp.Read;
  if (keyText.includes('EFFECT#')) return ProtocolOp.Effect;
  if (command === 'UpdateItemCommand') {
    if (update.includes('ADD #fence')) return ProtocolOp.Claim;
    if (update.startsWith('SET #leaseUntilMs = :until')) return ProtocolOp.Renew;
    if (update.includes(':released')) return ProtocolOp.Release;
    if (update.includes('#fencedBy = :lease')) return ProtocolOp.FencedWrite;
    if (condition === TAKEOVER) return ProtocolOp.Takeover;
  }
  if (command === 'PutItemCommand') {
    if (keyText.includes('"RUN#'))
      return condition === RUN_RECORD_ABANDON &&
        scalar((input.Item as Record<string, unknown> | undefined)?.outcome) === 'abandoned'
        ? ProtocolOp.MarkAbandoned
        : ProtocolOp.RunRecord;
    if (condition === INSERT_ONCE) return ProtocolOp.InsertOnce;
  }
  return ProtocolOp.Other;
}

function scalar(v: unknown): string | number | undefined {
  if (typeof v === 'string' || typeof v === 'number') return v;
  const a = v as { S?: string; N?: string } | undefined;
  if (a?.S !== undefined) return a.S;
  if (a?.N !== undefined) return Number(a.N);
  return undefined;
}

/**
 * The run id and fence a request writes under, read from its input: `:me` / `:fence` values of
 * conditional updates, `runId` / `fence` of put items (marshalled or plain), or the `runId` / `fence`
 * the in-memory store puts on its requests.
 */
export function requestMeta(input: Record<string, unknown>): { runId?: string; fence?: number } {
  const inner = transactedWrite(input);
  if (inner) return requestMeta(inner);
  const values = (input.ExpressionAttributeValues ?? {}) as Record<string, unknown>;
  const item = (input.Item ?? {}) as Record<string, unknown>;
  const runId = scalar(input.runId) ?? scalar(values[':me']) ?? scalar(item.runId);
  const fence = scalar(input.fence) ?? scalar(values[':fence']) ?? scalar(item.fence);
  return {
    ...(runId !== undefined && { runId: String(runId) }),
    ...(fence !== undefined && { fence: Number(fence) }),
  };
}

/**
 * The write inside a TransactWriteItems request (the last Put/Update/Delete: cronfence's transactions
 * are a lease ConditionCheck followed by the effect write), with the table name.
 */
export function transactedWrite(input: Record<string, unknown>): Record<string, unknown> | undefined {
  const items = input.TransactItems;
  if (!Array.isArray(items)) return undefined;
  for (let i = items.length - 1; i >= 0; i--) {
    const t = items[i] as Record<string, Record<string, unknown> | undefined>;
    const w = t.Put ?? t.Update ?? t.Delete;
    if (w) return w;
  }
  return undefined;
}
