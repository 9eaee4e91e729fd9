/**
 * Effects an operator reviews and settles: the list of effects awaiting review or not terminal (from
 * the sparse `problems` index: `Operator.effects`, `JobHandle.effects`, `cronfence effects`) and the
 * recorded manual reconciliation (`JobHandle.resolveEffect`, `cronfence effects resolve`), conditioned
 * on the state the operator was shown: each listed effect carries its `version`, resolve takes it back
 * and refuses a changed record and a `sending` one whose holder's lease is live (EffectInFlightError).
 * Both read and write the table only: no job code.
 */
import {
  EFFECT_UNSETTLED_AFTER_MS,
  type EffectItem,
  EffectStatus,
  effectItemOf,
  effectVersion,
} from '../lib/core/effects.js';
import { type EffectResolution, NOT_EXECUTED } from '../lib/core/ports.js';
import { DynamoEffectStore } from '../lib/store/effect-store.js';
import { UNSETTLED_PROBLEM } from '../lib/store/protocol/effect-operations.js';

export { UNSETTLED_PROBLEM };

import { operatorValue, usage } from './input.js';
import { type Item, publicView, queryProblems } from './run-queries.js';
import type { Session } from './session.js';

/** Which effects a listing shows: `needs-review`, `unsettled` (stuck past the alarm's period) or `all`. */
export const EFFECT_LISTINGS = [EffectStatus.NeedsReview, UNSETTLED_PROBLEM, 'all'] as const;
/** One of {@link EFFECT_LISTINGS}. */
export type EffectListing = (typeof EFFECT_LISTINGS)[number];

/** An effect not terminal for longer than this is stuck: the `EffectUnsettled` alarm's period, ms. */
export const UNSETTLED_AFTER_MS = EFFECT_UNSETTLED_AFTER_MS;

/** What an operator may resolve an effect to. */
export const RESOLUTIONS = [EffectStatus.Succeeded, EffectStatus.Failed, NOT_EXECUTED] as const;

/**
 * An effect record as listed: its idempotency `key`, the `version` to hand back to resolve (a
 * `sending` effect under a live lease ends in `:in-flight`), then the stored attributes without key,
 * TTL and index attributes (`problemAtMs`: when it was flagged, epoch ms).
 */
export type EffectView = Partial<EffectItem> & {
  readonly key: string;
  readonly version: string;
  readonly [attribute: string]: unknown;
};

/** Filters of {@link listEffects}. */
export interface EffectsOptions {
  /** @default 'all' (every needs-review and every not-terminal effect, whatever its age) */
  readonly status?: EffectListing;
  /** Only effects flagged at or after this instant, epoch ms. @default 30 days before now */
  readonly sinceMs?: number;
  /** Only this job's effects. @default every job */
  readonly job?: string;
  /** At most this many. @default 50 */
  readonly limit?: number;
}

/** What {@link resolveEffect} records. */
export interface ResolveOptions {
  /** `succeeded`, `failed`, or `not-executed` (back to pending: the next run of the slot sends it). */
  readonly as: EffectResolution['as'];
  /** What the provider said, 1-1024 characters (recorded on the effect). */
  readonly note: string;
  /** Who resolves it, 1-128 characters. @default `CRONFENCE_OPERATOR`, then the OS user */
  readonly by?: string;
  /** The version the operator was shown: refused, nothing changed, if the effect changed since. @default the version read now */
  readonly expect?: string;
}

/** A resolved effect: the version before and after, and the stored attributes. */
export type ResolvedEffectView = EffectView & { readonly previousVersion?: string };

/** The idempotency key of an effect item (its `key`, else from `EFFECT#<job>#<key>`). */
function effectKey(item: Item): string {
  return typeof item.key === 'string' ? item.key : String(item.pk ?? '').replace(/^EFFECT#[^#]*#/, '');
}

/** The job of an effect record (its `job`, else from the lease key `JOB#<job>[#<shard>]`), or `-`. */
export function effectJob(item: Readonly<Record<string, unknown>>): string {
  const job = item.job ?? (typeof item.leaseKey === 'string' ? item.leaseKey.split('#')[1] : undefined);
  return job === undefined || job === null || job === '' ? '-' : String(job);
}

/**
 * Effects in needs-review or not terminal, newest first: one Query per partition of the `problems`
 * index, then one GetItem of the holder's lease per `sending` effect (its version). @throws StoreError
 */
export async function listEffects(s: Session, o: EffectsOptions = {}): Promise<EffectView[]> {
  const status = o.status ?? 'all';
  if (!EFFECT_LISTINGS.includes(status))
    throw usage('status', status, `must be one of ${EFFECT_LISTINGS.join(', ')}`);
  const conn = await s.connection();
  const nowMs = s.now();
  const found = await queryProblems(conn.doc, conn.tableName, {
    problems: status === 'all' ? [EffectStatus.NeedsReview, UNSETTLED_PROBLEM] : [status],
    sinceMs: o.sinceMs ?? nowMs - 30 * 86_400_000,
    ...(o.job !== undefined && { job: o.job }),
    limit: o.limit ?? 50,
  });
  // `unsettled` marks every effect while it is not terminal; `unsettled` lists the stuck ones (past
  // the alarm's period), `all` lists every one, whatever its age.
  const stuck = (i: Item) => Number(i.problemAtMs) <= nowMs - UNSETTLED_AFTER_MS;
  const items = found.filter(
    (i) => status !== UNSETTLED_PROBLEM || i.problem !== UNSETTLED_PROBLEM || stuck(i),
  );
  const views: EffectView[] = [];
  for (const i of items) {
    const store = new DynamoEffectStore(conn.doc, conn.tableName, effectJob(i));
    const { version } = await store.shown(effectItemOf(i), nowMs);
    views.push({ key: effectKey(i), version, ...publicView(i) });
  }
  return views;
}

/**
 * Settle one effect of `job`: read it, then condition the write on the version read (or `expect`).
 * @throws InvalidArgumentError naming `note` or `by`; EffectChangedError when it changed since
 *   `expect`; EffectInFlightError for a `sending` effect whose holder's lease is live; StoreError
 */
export async function resolveEffect(
  s: Session,
  job: string,
  key: string,
  o: ResolveOptions,
): Promise<ResolvedEffectView> {
  const note = o.note.trim();
  if (note.length === 0 || note.length > 1024) throw usage('note', o.note, 'must be 1 to 1024 characters');
  if (!RESOLUTIONS.includes(o.as)) throw usage('as', o.as, `must be one of ${RESOLUTIONS.join(', ')}`);
  const by = operatorValue('by', o.by, 128);
  const conn = await s.connection();
  const store = new DynamoEffectStore(conn.doc, conn.tableName, job);
  // The safe path: read, show, and condition the write on what was read (or on `expect`).
  const read = await store.get(key);
  const shown = o.expect ?? (read ? (await store.shown(read, s.now())).version : undefined);
  const item = await store.resolve({
    key,
    as: o.as,
    note,
    by,
    nowMs: s.now(),
    ...(shown !== undefined && { expect: shown }),
  });
  return {
    key,
    version: effectVersion(item),
    ...publicView({ ...item }),
    ...(shown !== undefined && { previousVersion: shown }),
  };
}
