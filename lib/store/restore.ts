/**
 * The operator's step after restoring the library table from a backup or point-in-time recovery
 * (docs/operations.md "After restoring the library table"). AWS restores into a NEW table holding the
 * items as of the restore point: every lease's fence goes back while business items keep the fences
 * written since, and effect records written since are gone. {@link markRestored} raises each lease's
 * fence past every fence issued since (a fence only ever grows, so raising it is always safe) and marks
 * the lease with the restore point, so runs guard their effects (lib/runtime/restore-guard.ts) until
 * {@link clearRestoreMark}. Unconditional updates: they only add to the fence and set the mark.
 */
import { type DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { InvalidArgumentError } from '../core/input-errors.js';
import { Keys } from './schema.js';

/** A job whose leases to mark: its table key (`jobKeyOf`) and its shard count. */
export interface RestoredJob {
  readonly key: string;
  /** @default 1 */
  readonly shards?: number;
}

/** How far {@link markRestored} raises each fence by default: more claims than any job makes between a restore point and its restore. */
export const DEFAULT_FENCE_HEADROOM = 1_000_000;

function leaseKeys(jobs: readonly RestoredJob[]): { pk: string; sk: string }[] {
  return jobs.flatMap((j) => [
    Keys.lease(j.key),
    ...((j.shards ?? 1) > 1 ? Array.from({ length: j.shards ?? 1 }, (_, i) => Keys.lease(j.key, i)) : []),
  ]);
}

/**
 * Mark every lease of `jobs` restored: `ADD fence :headroom`, `SET restoredAtMs = :restorePoint`. A
 * lease the restore point did not have yet (the job first ran after it) is created with the raised
 * fence. Returns the lease keys written.
 * @param restorePointMs the restore point, epoch ms (the backup's creation time or the PITR instant).
 * @param fenceHeadroom how far to raise each fence. @default DEFAULT_FENCE_HEADROOM
 * @throws InvalidArgumentError naming `restorePointMs` or `fenceHeadroom` when not a positive integer.
 */
export async function markRestored(
  doc: DynamoDBDocumentClient,
  tableName: string,
  jobs: readonly RestoredJob[],
  restorePointMs: number,
  fenceHeadroom = DEFAULT_FENCE_HEADROOM,
): Promise<string[]> {
  if (!Number.isSafeInteger(restorePointMs) || restorePointMs <= 0)
    throw new InvalidArgumentError('restorePointMs', restorePointMs, 'must be epoch ms (a positive integer)');
  if (!Number.isSafeInteger(fenceHeadroom) || fenceHeadroom <= 0)
    throw new InvalidArgumentError('fenceHeadroom', fenceHeadroom, 'must be a positive integer');
  const keys = leaseKeys(jobs);
  for (const key of keys) {
    await doc.send(
      new UpdateCommand({
        TableName: tableName,
        Key: key,
        UpdateExpression: 'SET restoredAtMs = :restorePoint ADD fence :headroom',
        ExpressionAttributeValues: { ':restorePoint': restorePointMs, ':headroom': fenceHeadroom },
      }),
    );
  }
  return keys.map((k) => k.pk);
}

/**
 * Remove the restore mark from every lease of `jobs`, once the effects since the restore point are
 * reconciled with the providers (`cronfence effects`): runs then send as usual. Returns the lease keys.
 */
export async function clearRestoreMark(
  doc: DynamoDBDocumentClient,
  tableName: string,
  jobs: readonly RestoredJob[],
): Promise<string[]> {
  const keys = leaseKeys(jobs);
  for (const key of keys) {
    await doc
      .send(
        new UpdateCommand({
          TableName: tableName,
          Key: key,
          UpdateExpression: 'REMOVE restoredAtMs',
          ConditionExpression: 'attribute_exists(pk)',
        }),
      )
      .catch((err: unknown) => {
        if ((err as Error)?.name !== 'ConditionalCheckFailedException') throw err;
      });
  }
  return keys.map((k) => k.pk);
}
