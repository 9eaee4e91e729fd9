/**
 * Manual reconciliation of an external effect (DESIGN.md protocol 5): an operator who checked the
 * provider moves an effect from `needs-review` to `succeeded` or `failed`, in ONE conditional
 * UpdateItem on the effect item (`Keys.effect(job, key)`, lib/effects' `EffectItem`), recording how
 * (`resolvedBy = 'operator'`, as lib/effects records `lookup` / `resend`), who (`reviewedBy`), when
 * (`reviewedAtMs`) and why (`reviewNote`), and dropping it from the sparse `problems` index.
 * The condition fragment could move to lib/store/conditions.ts with the other effect conditions.
 */
import { type DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { CronfenceError, ErrorCode } from '../errors.js';
import { isConditionFailure, itemOfConditionFailure, storeError } from '../store/client.js';
import { Attr, Keys } from '../store/schema.js';

/** Effect status an operator resolves from. */
export const NEEDS_REVIEW = 'needs-review';

/** Statuses an operator may resolve an effect to. */
export const RESOLUTIONS = ['succeeded', 'failed'] as const;
/** Union of {@link RESOLUTIONS}. */
export type Resolution = (typeof RESOLUTIONS)[number];

/** Resolve only an effect still awaiting review (never one the runtime or another operator settled). */
export const EFFECT_RESOLVE = '#status = :needsReview';

/** The effect was not in `needs-review` (or does not exist): nothing was changed. Carries the item. */
export class EffectNotInReviewError extends CronfenceError {
  readonly key: string;
  readonly item: Record<string, unknown> | undefined;
  constructor(key: string, item: Record<string, unknown> | undefined, job?: string) {
    super(
      ErrorCode.InvalidArgument,
      item
        ? `effect "${key}" is ${String(item.status)}, not ${NEEDS_REVIEW}: nothing changed${item.reviewedBy ? ` (resolved by ${String(item.reviewedBy)})` : ''}`
        : `no effect with key "${key}"${job ? ` for job ${job}` : ''}: nothing changed`,
    );
    this.key = key;
    this.item = item;
  }
}

/** A resolution request. */
export interface ResolveRequest {
  /** The job whose run created the effect (effects are stored per job: `EFFECT#<job>#<key>`). */
  readonly job: string;
  readonly key: string;
  readonly as: Resolution;
  readonly note: string;
  readonly by: string;
  readonly nowMs: number;
}

/**
 * Resolve an effect. @returns the item after the update.
 * @throws EffectNotInReviewError when the item is missing or not `needs-review`; StoreError otherwise.
 */
export async function resolveEffect(
  doc: DynamoDBDocumentClient,
  tableName: string,
  req: ResolveRequest,
): Promise<Record<string, unknown>> {
  try {
    const out = await doc.send(
      new UpdateCommand({
        TableName: tableName,
        Key: Keys.effect(req.job, req.key),
        ConditionExpression: EFFECT_RESOLVE,
        UpdateExpression:
          'SET #status = :as, #resolvedBy = :operator, #reviewedBy = :by, #reviewedAtMs = :now, #reviewNote = :note, #finishedAtMs = :now, #updatedAtMs = :now REMOVE #problem, #problemAtMs',
        ExpressionAttributeNames: {
          '#status': 'status',
          '#resolvedBy': 'resolvedBy',
          '#reviewedBy': 'reviewedBy',
          '#reviewedAtMs': 'reviewedAtMs',
          '#reviewNote': 'reviewNote',
          '#finishedAtMs': 'finishedAtMs',
          '#updatedAtMs': 'updatedAtMs',
          '#problem': Attr.problem,
          '#problemAtMs': Attr.problemAtMs,
        },
        ExpressionAttributeValues: {
          ':needsReview': NEEDS_REVIEW,
          ':as': req.as,
          ':operator': 'operator',
          ':by': req.by,
          ':now': req.nowMs,
          ':note': req.note,
        },
        ReturnValues: 'ALL_NEW',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    return out.Attributes ?? {};
  } catch (err) {
    if (isConditionFailure(err))
      throw new EffectNotInReviewError(req.key, itemOfConditionFailure(err), req.job);
    throw storeError('UpdateItem (resolve effect)', err);
  }
}
