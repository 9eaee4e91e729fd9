/**
 * The protocol's writes on leases, run records and business rows (docs/design.md "One invocation",
 * steps 1–4 and 6), each declared ONCE: key, condition, update, operation name and what a refusal
 * means. The DynamoDB request and the in-memory behaviour are both derived from these declarations
 * (lib/store/protocol/dynamo-backend.ts; the harness's memory backend), and the stores only choose
 * which operation to perform. Effect transitions: effect-operations.ts.
 */

import { ResultConflictError, StaleFenceError } from '../../core/fence-errors.js';
import {
  decideClaimFailed,
  decideClaimSucceeded,
  doneKey,
  LEASE_REQUESTER_MAX_CHARS,
  type LeaseItem,
  NO_HOLDER,
  readableLeaseUntil,
  slotIdOfDoneKey,
  storedDoneSet,
} from '../../core/lease.js';
import { Outcome } from '../../core/outcomes.js';
import { RESUME_TRACE } from '../../core/pause.js';
import type {
  ClaimRequest,
  FenceContext,
  HolderSeen,
  InsertOnceResult,
  ItemRef,
  LeaseRef,
  ReleaseRequest,
  ReleaseResult,
  RunRecord,
} from '../../core/ports.js';
import {
  BOOKKEEPING_PREFIX,
  BusinessAttr,
  crossLeaseRefused,
  fencedWriteRefused,
  insertRefused,
  LegacyBusinessAttr,
  storedFence,
} from '../../core/results.js';
import { showValue } from '../../core/show-value.js';
import { LeaseLostError, StoreError } from '../errors.js';
import { abandonedRunItem, runRecordItem } from '../run-items.js';
import { Attr, Keys } from '../schema.js';
import {
  AppendToList,
  and,
  type Condition,
  eq,
  exists,
  IfNotExists,
  type le,
  lt,
  ne,
  notContains,
  notExists,
  or,
} from './expression.js';
import { ProtocolOp } from './ops.js';
import { withOverlap } from './overlap-conditions.js';
import {
  InputParameters,
  type Item,
  type Operation,
  ParameterisedRequest,
  type ProtocolRequest,
  PutParameters,
  type RequestParameters,
  type Write,
} from './request.js';

/** Sort key of every lease item. */
export const LEASE_SK = Keys.lease('-').sk;

/** A lease of a table. */
type OnLease = LeaseRef & { readonly table: string };

/**
 * Holder-only (renew, release, the effects' lease check; steps 2, 5, 6): still ours — same owner,
 * same fence — AND still running. Release sets `holderState = released`, so a renewal or an effect of
 * that owner and fence arriving after the release is refused: release is terminal for its owner and
 * fence, and a run's authority in DynamoDB ends with it.
 */
export function owned(runId: string, fence: number): Condition {
  return and(eq('owner', runId), eq('fence', fence), eq('holderState', 'running'));
}

/**
 * Another lease is not running: never held, released, or expired by the caller's clock. The check of a
 * cross-lease reconciliation (a protected item or effect last written under another lease).
 */
export function leaseInactive(nowMs: number): Condition {
  return or(notExists('holderState'), ne('holderState', 'running'), lt('leaseUntilMs', nowMs));
}

/**
 * True when `item` is the lease as released by this owner and fence, with or without its record
 * (`released` / `unrecorded`): release is terminal for them.
 */
export function releasedBy(item: Item | undefined, ref: { runId: string; fence: number }): boolean {
  return (
    item?.owner === ref.runId &&
    item.fence === ref.fence &&
    (item.holderState === 'released' || item.holderState === 'unrecorded')
  );
}

/**
 * No pause in force by the caller's clock (docs/design.md "Pause"; lib/core/pause.ts `pauseInForce`):
 * never paused, resumed, or paused with an expiry that has passed. Part of every claim's condition.
 */
export function notPaused(nowMs: number): Condition {
  return or(notExists('pausedAtMs'), lt('pausedUntilMs', nowMs));
}

/**
 * Claim (step 1): lease free or expired by the caller's clock, not paused ({@link notPaused}), and (unless forced: a manual re-run)
 * the slot not already succeeded. Sets the holder, `ADD fence 1`, and keeps the displaced holder as
 * `prev*` so a claim whose response was lost can still mark it abandoned. Returns ALL_OLD.
 * Refused: the returned item decides (ours after a lost response, already succeeded, held, overlap).
 */
export const claim: Operation<
  ClaimRequest & { readonly table: string },
  ReturnType<typeof decideClaimSucceeded>
> = {
  name: ProtocolOp.Claim,
  // Every run sends one: a backend that reuses a shape's compiled text takes only its values, and the
  // declaration is built when read (by another backend, an error message, the shape's first request).
  request: (req) =>
    new ParameterisedRequest(
      {
        op: ProtocolOp.Claim,
        name: 'claim',
        table: req.table,
        key: Keys.lease(req.job, req.shard),
        runId: req.runId,
      },
      'claim lease',
      new InputParameters(claimShape(req), req, claimValues),
      () => claimDeclaration(req).writes,
    ),
  accepted: (old, req) => decideClaimSucceeded(old as LeaseItem | undefined, req),
  refused: (item, _i, req) => decideClaimFailed(item as LeaseItem | undefined, req),
};

/** {@link claim}'s declaration. */
function claimDeclaration(req: ClaimRequest & { readonly table: string }): ProtocolRequest {
  const free = or(notExists('leaseUntilMs'), lt('leaseUntilMs', req.nowMs));
  // Not done under this definition: a done set written under another definition id (a zone,
  // schedule or shard-count change between deploys) does not count.
  const base = req.force ? and(free, notPaused(req.nowMs)) : and(free, ...claimable(req));
  return claimRequest(req, 'claim lease', withOverlap(base, req));
}

/** The claim shape made last, and what it was made from: a process's claims repeat their job's shape. */
let lastClaimShape:
  | {
      readonly table: string;
      readonly job: string;
      readonly shard: number | undefined;
      readonly options: string;
      readonly shape: string;
    }
  | undefined;

/**
 * What a claim's expressions, key and table depend on besides their values ({@link claim}'s
 * {@link RequestParameters.shape}): `claim`, the table, the job, the shard and one character per
 * option (`-` when off). The last one made is given again for a claim with the same options: the
 * backend looks shapes up by this string, and a string already looked up has its hash.
 */
function claimShape(req: ClaimRequest & { readonly table: string }): string {
  const o = req.overlap;
  const options =
    (req.force === true ? 'f' : '-') +
    (req.def !== undefined ? 'd' : '-') +
    (doneKey(req.slotId) === req.slotId ? 's' : '-') +
    (req.trigger !== undefined ? 't' : '-') +
    (req.requestedBy !== undefined ? 'r' : '-') +
    (req.shards !== undefined && req.shards > 1 ? 'n' : '-') +
    (o?.buffer === 'own-turn' ? 'o' : o?.buffer === 'none-waiting' ? 'w' : '-') +
    (o?.previousSlotId !== undefined ? (o.fromFirstSlot === true ? 'P' : 'p') : o?.firstSlot ? 'F' : '-');
  const last = lastClaimShape;
  if (
    last !== undefined &&
    last.options === options &&
    last.table === req.table &&
    last.job === req.job &&
    last.shard === req.shard
  )
    return last.shape;
  const shape = `claim\n${req.table}\n${req.job}\n${req.shard ?? ''}\n${options}`;
  lastClaimShape = { table: req.table, job: req.job, shard: req.shard, options, shape };
  return shape;
}

/**
 * The values of {@link claim}'s declaration, in the order its compiled expressions number them: its
 * condition's (free, not paused, not done, the overlap guards: {@link claimable}, `withOverlap`), then
 * its update's ({@link claimRequest}'s SET in order, ADD, DELETE). The DynamoDB backend checks them
 * against the declaration on the first claim of each shape.
 */
function claimValues(req: ClaimRequest & { readonly table: string }): unknown[] {
  const { slotId, nowMs, leaseUntilMs, def, overlap } = req;
  const v: unknown[] = [nowMs, nowMs];
  if (req.force !== true) {
    const stored = doneKey(slotId);
    v.push(stored);
    if (stored !== slotId) v.push(slotId);
    if (def !== undefined) v.push(def);
  }
  if (overlap?.buffer) v.push(overlap.buffer === 'own-turn' ? doneKey(slotId) : slotId);
  if (overlap?.previousSlotId !== undefined) {
    v.push(doneKey(overlap.previousSlotId));
    if (def !== undefined) v.push(def);
  } else if (overlap?.firstSlot) {
    v.push(doneKey(slotId));
    if (def !== undefined) v.push(def);
  }
  v.push(req.runId, leaseUntilMs, readableLeaseUntil('running', leaseUntilMs), slotId);
  if (req.trigger !== undefined) v.push(req.trigger);
  if (req.requestedBy !== undefined) v.push(req.requestedBy.slice(0, LEASE_REQUESTER_MAX_CHARS));
  v.push('running', nowMs, nowMs, req.lambdaRequestId ?? '-');
  if (req.shards !== undefined && req.shards > 1) v.push(req.shards);
  v.push(NO_HOLDER, NO_HOLDER, 0, NO_HOLDER, [], [{ runId: req.runId, slot: slotId, leaseUntilMs }], 1);
  if (overlap?.buffer) v.push(new Set([doneKey(slotId)]));
  return v;
}

/**
 * Not paused and (per definition) not done: the part of a claim's condition that does not depend on
 * who holds the lease. The slot is stored as its compact done key; an item whose done set predates
 * the keys holds the plain id, so both are checked until its next release rewrites the set.
 */
export function claimable(req: Pick<ClaimRequest, 'slotId' | 'nowMs' | 'def'>): Condition[] {
  const stored = doneKey(req.slotId);
  const notDone =
    stored === req.slotId
      ? notContains('doneSlots', stored)
      : and(notContains('doneSlots', stored), notContains('doneSlots', req.slotId));
  const open = notPaused(req.nowMs);
  return req.def === undefined
    ? [open, notDone]
    : [open, or(notDone, and(exists('def'), ne('def', req.def)))];
}

/**
 * The claim's write under `condition`: sets the holder, `ADD fence 1`, keeps the displaced holder as
 * `prev*`, appends itself to `open`, takes its slot off the buffered list (overlap `buffer-*`), and
 * `extra` (a replacing claim names the run it displaced). Returns ALL_OLD.
 */
export function claimRequest(
  req: ClaimRequest & { readonly table: string },
  label: string,
  condition: Condition,
  extra: Item = {},
): ProtocolRequest {
  const key = Keys.lease(req.job, req.shard);
  return {
    tag: { op: ProtocolOp.Claim, name: 'claim', table: req.table, key, runId: req.runId },
    label,
    writes: [
      {
        kind: 'update',
        table: req.table,
        key,
        condition,
        update: {
          set: {
            owner: req.runId,
            leaseUntilMs: req.leaseUntilMs,
            leaseUntil: readableLeaseUntil('running', req.leaseUntilMs),
            slot: req.slotId,
            // Who this holder is, for an abandon mark if it dies holding the lease (and for a reader).
            ...(req.trigger !== undefined && { trigger: req.trigger }),
            ...(req.requestedBy !== undefined && {
              requestedBy: req.requestedBy.slice(0, LEASE_REQUESTER_MAX_CHARS),
            }),
            holderState: 'running',
            acquiredAtMs: req.nowMs,
            renewedAtMs: req.nowMs,
            lambdaRequestId: req.lambdaRequestId ?? '-',
            // Sharded jobs only: where the shard leases are, for readers without the job's code.
            ...(req.shards !== undefined && req.shards > 1 && { shards: req.shards }),
            prevOwner: new IfNotExists('owner', NO_HOLDER),
            prevSlot: new IfNotExists('slot', NO_HOLDER),
            prevLeaseUntilMs: new IfNotExists('leaseUntilMs', 0),
            prevHolderState: new IfNotExists('holderState', NO_HOLDER),
            // Every claim appends itself; a release that marked the earlier entries removes the list.
            open: new AppendToList('open', [
              { runId: req.runId, slot: req.slotId, leaseUntilMs: req.leaseUntilMs },
            ]),
            ...extra,
          },
          add: { fence: 1 },
          ...(req.overlap?.buffer && { deleteFromSet: { buffered: [doneKey(req.slotId)] } }),
          // A requester names the holder it was written for, never a later one.
          ...(req.requestedBy === undefined && { remove: ['requestedBy'] }),
        },
        returnValues: 'ALL_OLD',
      },
    ],
  };
}

/** The slot ids waiting on a lease item (overlap `buffer-*`), in slot order. */
export function bufferedSlots(item: LeaseItem | undefined): string[] {
  return [...(item?.buffered ?? [])].map(slotIdOfDoneKey).sort();
}

/** Input of renew and release. */
export type HolderRef = OnLease & { readonly runId: string; readonly fence: number; readonly nowMs: number };

type OwnedInput = HolderRef & Partial<ReleaseRequest> & { leaseUntilMs?: number };

/** What an accepted release reads of the item it returns (`ALL_NEW`): the slots still buffered. */
const RELEASE_READS: readonly string[] = ['buffered'];

/** The one write of a holder-only update ({@link ownedUpdate}). */
function ownedWrites(
  name: 'renew' | 'release',
  ref: OwnedInput,
  key: Item,
  set: (ref: OwnedInput) => Item,
  remove: (ref: OwnedInput) => string[],
): [Write] {
  return [
    {
      kind: 'update',
      table: ref.table,
      key,
      condition:
        name === 'renew' && ref.leaseUntilMs !== undefined
          ? and(owned(ref.runId, ref.fence), lt('leaseUntilMs', ref.leaseUntilMs))
          : owned(ref.runId, ref.fence),
      update: { set: set(ref), ...(remove(ref).length > 0 && { remove: remove(ref) }) },
      // The release learns the slots still buffered (overlap `buffer-*`) from its own write.
      ...(name === 'release' && { returnValues: 'ALL_NEW' as const }),
    },
  ];
}

/**
 * A holder-only update of the lease ({@link owned}): renew or release. `parameters`, when it gives
 * them for a request, make the request's declaration one built only when read (see {@link claim}).
 */
function ownedUpdate(
  name: 'renew' | 'release',
  what: string,
  set: (ref: OwnedInput) => Item,
  remove: (ref: OwnedInput) => string[] = () => [],
  parameters: (ref: OwnedInput) => RequestParameters | undefined = () => undefined,
): Operation<OwnedInput, ReleaseResult> {
  return {
    name,
    request: (ref) => {
      const key = Keys.lease(ref.job, ref.shard);
      const tag = { op: name, name, table: ref.table, key, runId: ref.runId, fence: ref.fence };
      // An accepted release is read for its buffered slots alone (`accepted` below).
      const reads = name === 'release' ? { returnedAttributes: RELEASE_READS } : {};
      const given = parameters(ref);
      if (given === undefined)
        return { tag, label: what, writes: ownedWrites(name, ref, key, set, remove), ...reads };
      return new ParameterisedRequest(
        tag,
        what,
        given,
        () => ownedWrites(name, ref, key, set, remove),
        reads.returnedAttributes,
      );
    },
    accepted: (item) => ({ buffered: bufferedSlots(item as LeaseItem | undefined) }),
    refused: (item, _i, ref) => {
      // Our own release whose response was lost (the SDK retried it): already done.
      if (name === 'release' && releasedBy(item, ref))
        return { buffered: bufferedSlots(item as LeaseItem | undefined) };
      // A renewal that would not extend the lease: a later one of ours already did (an earlier renewal
      // held in the network landed after it), or both end at the deadline. Still ours, until at least then.
      if (name === 'renew' && extendedBy(item, ref))
        return { buffered: bufferedSlots(item as LeaseItem | undefined) };
      const why = releasedBy(item, ref)
        ? 'already released it (release is terminal for its owner and fence)'
        : `no longer holds the lease; holder is ${String(item?.owner)} with fence ${String(item?.fence)}`;
      throw new LeaseLostError(
        `${what} refused for ${ref.job}: run ${ref.runId} (fence ${ref.fence}) ${why}`,
        item,
      );
    },
  };
}

/**
 * True when `item` is still held, running, by this owner and fence, to at least `ref.leaseUntilMs`: a
 * renewal to that end has nothing to do.
 */
function extendedBy(item: Item | undefined, ref: OwnedInput): boolean {
  return (
    item?.owner === ref.runId &&
    item.fence === ref.fence &&
    item.holderState === 'running' &&
    ref.leaseUntilMs !== undefined &&
    Number(item.leaseUntilMs) >= ref.leaseUntilMs
  );
}

/**
 * Renew (step 2): extend our lease, never shorten it — the condition adds `leaseUntilMs < :until`, so a
 * renewal that lands after a later one of the same holder (an abandoned request still delivered:
 * aborting the SDK call does not recall a request already sent) cannot move the lease's end back and
 * let a claim in while the holder still counts on it. Such a renewal, or one that ends where the lease
 * already ends, is a no-op for its holder. Refused otherwise: LeaseLostError carrying the lease as it is.
 */
export const renew = ownedUpdate('renew', 'renew lease', (ref) => ({
  leaseUntilMs: ref.leaseUntilMs,
  ...(ref.leaseUntilMs !== undefined && { leaseUntil: readableLeaseUntil('running', ref.leaseUntilMs) }),
  renewedAtMs: ref.nowMs,
}));

/**
 * Release (step 6): `leaseUntilMs = 0` (never `now`: see docs/design.md), `holderState = released`,
 * `leaseUntil = released` for a reader, and on success the done set and `lastSucceeded` (the slot). Refused: LeaseLostError carrying the lease as it is.
 */
export const release = ownedUpdate(
  'release',
  'release lease',
  (ref) => {
    // Unrecorded (the run could not write its record): free the lease and end the run's authority like
    // any release (terminal for its owner and fence), as `unrecorded` and still on the open list, so
    // that the next claimer (or the sweeper) records this run abandoned.
    if (ref.recorded === false)
      return {
        leaseUntilMs: 0,
        leaseUntil: readableLeaseUntil('unrecorded'),
        holderState: 'unrecorded',
        releasedAtMs: ref.nowMs,
      };
    const done = ref.doneSlots !== undefined && ref.doneSlots.size > 0;
    return {
      leaseUntilMs: 0,
      leaseUntil: readableLeaseUntil('released'),
      holderState: 'released',
      releasedAtMs: ref.nowMs,
      ...(done && { doneSlots: storedDoneSet(ref.doneSlots) }),
      ...(done && ref.succeededSlot !== undefined && { lastSucceeded: ref.succeededSlot }),
      ...(done && ref.def !== undefined && { def: ref.def }),
      ...failureSets(ref),
    };
  },
  (ref) => [
    ...(ref.recorded !== false && ref.clearOpen ? ['open'] : []),
    // Who the holder was matters only for an abandon mark: a recorded run's record names it (and the
    // released item keeps its bytes for the pause: docs/design.md "Lease item size").
    ...(ref.recorded !== false ? ['trigger', 'requestedBy'] : []),
    // The pausing release keeps the streak in the pause (`pausedRuns`, the note) and drops the list.
    ...(ref.failedSlots === null || (ref.failedSlots && ref.pause) ? ['failedSlots'] : []),
    ...(ref.failedSlots && ref.pause ? ['pausedUntilMs', ...RESUME_TRACE] : []),
  ],
  releaseParameters,
);

/**
 * `pauseOnFailure` (lib/core/pause.ts): the release of a failed run stores the streak; the one that
 * completes it also pauses the job until resumed (replacing an expired `--until` pause; no request is
 * added: it is the release the run sends anyway).
 */
function failureSets(ref: Partial<ReleaseRequest>): Item {
  if (!ref.failedSlots) return {};
  // Once the streak pauses the job, the pause names its runs and slots: storing the list as well
  // would write the streak twice and pass 1 KB (every lease write stays at 1 WCU).
  if (ref.pause) return { ...ref.pause };
  return { failedSlots: storedFailedSlots(ref.failedSlots) };
}

/** The failure streak as the lease stores it: each occurrence's slot and run id. */
function storedFailedSlots(slots: NonNullable<ReleaseRequest['failedSlots']>): Item[] {
  return slots.map((f) => ({ slot: f.slot, runId: f.runId }));
}

/**
 * {@link release}'s {@link RequestParameters}: every release but the one that pauses the job (its
 * pause's attributes vary with the pause; it is sent from its declaration). The shape is what the
 * release's expressions, key and table depend on besides their values: recorded or not, a done set,
 * its slot and definition id, the failure streak stored or removed, the open list cleared.
 */
function releaseParameters(ref: OwnedInput): RequestParameters | undefined {
  if (ref.failedSlots && ref.pause) return undefined;
  const done = hasDoneSet(ref);
  const flags =
    (ref.recorded === false ? 'u' : 'r') +
    (done ? 'd' : '-') +
    (done && ref.succeededSlot !== undefined ? 's' : '-') +
    (done && ref.def !== undefined ? 'D' : '-') +
    (ref.failedSlots === null ? 'x' : ref.failedSlots ? 'f' : '-') +
    (ref.clearOpen ? 'o' : '-');
  return new InputParameters(
    `release\n${ref.table}\n${ref.job}\n${ref.shard ?? ''}\n${flags}`,
    ref,
    releaseValues,
  );
}

/** The release writes a done set (a success's, or the one the claim returned). */
function hasDoneSet(ref: OwnedInput): boolean {
  return ref.doneSlots !== undefined && ref.doneSlots.size > 0;
}

/**
 * The values of {@link release}'s declaration, in the order its compiled expressions number them: its
 * condition's ({@link owned}), then its SET's in order (the REMOVE names carry none). The DynamoDB
 * backend checks them against the declaration on the first release of each shape.
 */
function releaseValues(ref: OwnedInput): unknown[] {
  const done = hasDoneSet(ref);
  const v: unknown[] = [ref.runId, ref.fence, 'running'];
  if (ref.recorded === false) {
    v.push(0, readableLeaseUntil('unrecorded'), 'unrecorded', ref.nowMs);
    return v;
  }
  v.push(0, readableLeaseUntil('released'), 'released', ref.nowMs);
  if (done && ref.doneSlots !== undefined) {
    v.push(storedDoneSet(ref.doneSlots));
    if (ref.succeededSlot !== undefined) v.push(ref.succeededSlot);
    if (ref.def !== undefined) v.push(ref.def);
  }
  if (ref.failedSlots) v.push(storedFailedSlots(ref.failedSlots));
  return v;
}

/**
 * Best-effort release after a claim request failed (its response lost, every retry refused): only if
 * the item still names the run as a running owner (the caller does not know the fence it may hold).
 * Returns the item before the release (its fence is the run's), or undefined when it is not ours.
 */
export const releaseIfOwner: Operation<OnLease & { runId: string; nowMs: number }, LeaseItem | undefined> = {
  name: 'release',
  request: (ref) => {
    const key = Keys.lease(ref.job, ref.shard);
    return {
      tag: { op: ProtocolOp.Release, name: 'release', table: ref.table, key, runId: ref.runId },
      label: 'release lease after a failed claim',
      writes: [
        {
          kind: 'update',
          table: ref.table,
          key,
          condition: and(eq('owner', ref.runId), eq('holderState', 'running')),
          update: {
            set: {
              leaseUntilMs: 0,
              leaseUntil: readableLeaseUntil('released'),
              holderState: 'released',
              releasedAtMs: ref.nowMs,
            },
          },
          returnValues: 'ALL_OLD',
        },
      ],
    };
  },
  accepted: (old) => old as LeaseItem | undefined,
  refused: () => undefined,
};

/** A run's terminal record and its retention. */
export interface RunRecordInput {
  readonly table: string;
  readonly record: RunRecord;
  readonly retentionDays: number;
}

/** Which {@link runRecordCondition} an outcome's record is written under. */
function runRecordClass(outcome: string): 'succeeded' | 'stale' | 'other' {
  return outcome === Outcome.Succeeded ? 'succeeded' : outcome === Outcome.Stale ? 'stale' : 'other';
}

/** The values of {@link runRecordCondition}, in the order its compiled expression numbers them. */
function runRecordValues(outcome: string): unknown[] {
  switch (runRecordClass(outcome)) {
    case 'succeeded':
      return [];
    case 'stale':
      return [Outcome.Abandoned, Outcome.Succeeded];
    case 'other':
      return [Outcome.Abandoned];
  }
}

/**
 * What a run record may replace, by outcome: `succeeded` only where nothing is recorded (an `abandoned`
 * mark means a successor took the lease: the run is then `stale`, never `succeeded` next to it);
 * `stale` also its own `succeeded` (the correction when the release after it was refused); anything
 * else an `abandoned` mark left by a successor.
 */
function runRecordCondition(outcome: string): Condition {
  if (outcome === Outcome.Succeeded) return notExists(Attr.pk);
  if (outcome === Outcome.Stale)
    return or(notExists(Attr.pk), eq('outcome', Outcome.Abandoned), eq('outcome', Outcome.Succeeded));
  return or(notExists(Attr.pk), eq('outcome', Outcome.Abandoned));
}

/**
 * The run record (step 6): written once, with {@link runRecordCondition}. Refused: our own earlier put
 * whose response was lost (same run, same outcome) is fine; `succeeded` refused by an abandoned mark is
 * LeaseLostError (the run was displaced: record it stale); anything else is a StoreError naming the
 * record's stored outcome.
 */
export const putRunRecord: Operation<RunRecordInput, void> = {
  name: ProtocolOp.RunRecord,
  request: ({ table, record, retentionDays }) => {
    const key = Keys.run(record.job, record.slot, record.runId);
    // One item for the declaration and the parameters: its `expiresAt` reads the clock.
    const item = runRecordItem(record, retentionDays);
    return new ParameterisedRequest(
      {
        op: ProtocolOp.RunRecord,
        name: 'run-record',
        table,
        key,
        runId: record.runId,
        ...(record.fence !== undefined && { fence: record.fence }),
      },
      'run record',
      // The condition's text, names and values depend only on the outcome's class.
      new PutParameters(
        `run-record\n${table}\n${runRecordClass(record.outcome)}`,
        record.outcome,
        runRecordValues,
        item,
      ),
      () => [{ kind: 'put', table, key, item, condition: runRecordCondition(record.outcome) }],
    );
  },
  accepted: () => undefined,
  refused: (existing, _i, { record }) => {
    if (existing?.runId === record.runId && existing?.outcome === record.outcome) return;
    if (record.outcome === Outcome.Succeeded && existing?.outcome === Outcome.Abandoned) {
      const by = (existing.details as Record<string, unknown> | undefined)?.detectedBy;
      throw new LeaseLostError(
        `run ${record.runId} (fence ${String(record.fence)}) was displaced: run ${String(by)} took its lease and marked it abandoned`,
        existing,
      );
    }
    throw new StoreError(
      'PutItem (run record)',
      new Error(`run record ${record.runId} already written as ${String(existing?.outcome)}`),
    );
  },
};

/** A displaced holder to mark abandoned. */
export interface AbandonInput {
  readonly table: string;
  readonly job: string;
  readonly holder: HolderSeen;
  readonly byRunId: string;
  readonly nowMs: number;
  readonly retentionDays: number;
}

/**
 * Abandon mark: record a displaced holder's run `abandoned / not-released`, only if it never wrote
 * its own record. Refused: it did; keep it (not an error). Resolves `true` when the mark was written,
 * `false` when the holder's own record was there (e.g. `succeeded`, its release lost to a timeout):
 * only a written mark is a problem to count.
 */
export const markAbandoned: Operation<AbandonInput, boolean> = {
  name: ProtocolOp.MarkAbandoned,
  request: (a) => {
    const key = Keys.run(a.job, a.holder.slot, a.holder.runId);
    return {
      tag: {
        op: ProtocolOp.MarkAbandoned,
        name: 'mark-abandoned',
        table: a.table,
        key,
        runId: a.holder.runId,
        fence: a.holder.fence,
      },
      label: 'abandoned run record',
      writes: [
        {
          kind: 'put',
          table: a.table,
          key,
          item: abandonedRunItem(a.job, a.holder, a.byRunId, a.nowMs, a.retentionDays),
          condition: notExists(Attr.pk),
        },
      ],
    };
  },
  accepted: () => true,
  refused: () => false,
};

/** `<table> <key>` for messages. */
export function describeRef(ref: ItemRef): string {
  return `${ref.tableName} ${showValue(ref.key)}`;
}

/**
 * A job's attributes for a business write, without `undefined` values (and, for an update, without the
 * key). Every other name is the job's own and stored as given.
 * @throws ResultConflictError (nothing sent) naming an attribute whose name starts with `cronfence:`,
 *   the prefix of cronfence's bookkeeping attributes ({@link BusinessAttr}).
 */
function jobAttributes(
  ref: ItemRef,
  attributes: Record<string, unknown>,
  { withKey }: { withKey: boolean },
): Item {
  const out: Item = {};
  for (const [k, v] of Object.entries(attributes)) {
    if (k.startsWith(BOOKKEEPING_PREFIX))
      throw new ResultConflictError(
        `${describeRef(ref)}: attribute "${k}" is refused: names starting with "${BOOKKEEPING_PREFIX}" are cronfence's bookkeeping on business items (${Object.values(BusinessAttr).join(', ')}); rename it`,
      );
    if ((!withKey && k in ref.key) || v === undefined) continue;
    out[k] = v;
  }
  return out;
}

/**
 * The item was last written under lease `lease` with a fence `fenceOp` `fence`: the bookkeeping
 * attributes, or (an item without them, written by an earlier version) the legacy ones.
 */
function lastWrittenUnder(lease: string, fenceOp: typeof le | typeof eq, fence: number): Condition {
  return or(
    and(eq(BusinessAttr.lease, lease), fenceOp(BusinessAttr.fence, fence)),
    and(
      notExists(BusinessAttr.fence),
      eq(LegacyBusinessAttr.lease, lease),
      fenceOp(LegacyBusinessAttr.fence, fence),
    ),
  );
}

/**
 * The item was last written under our lease with a lower fence, or with our own fence BY OUR OWN RUN
 * (its lost-response retry): a fence is claimed by one run, so the same fence from another run means
 * the lease's fences went back (a restored table). The bookkeeping attributes, or the legacy ones.
 */
function notAheadOf(fc: FenceContext): Condition {
  const under = (a: typeof BusinessAttr | typeof LegacyBusinessAttr) =>
    and(
      eq(a.lease, fc.leaseKey),
      or(lt(a.fence, fc.fence), and(eq(a.fence, fc.fence), eq(a.runId, fc.runId))),
    );
  return or(under(BusinessAttr), and(notExists(BusinessAttr.fence), under(LegacyBusinessAttr)));
}

/** Never written under a fence, by this version or an earlier one. */
const neverFenced = (): Condition => and(notExists(BusinessAttr.fence), notExists(LegacyBusinessAttr.lease));

/** A business write: the row, the job's attributes, the fence. */
export interface BusinessWrite {
  readonly ref: ItemRef;
  readonly attributes: Record<string, unknown>;
  readonly fc: FenceContext;
  /** The lease table, when the write also checks the writer's lease ({@link FenceContext.checkLease}). */
  readonly leaseTable?: string;
}

/**
 * The writes of a business write: the write alone, or — with a lease table — first a check that the
 * writer still holds its lease ({@link owned}), in one transaction with it.
 */
function underLease(w: BusinessWrite, write: Write): readonly [Write, ...Write[]] {
  if (w.leaseTable === undefined) return [write];
  return [
    {
      kind: 'check',
      table: w.leaseTable,
      key: { pk: w.fc.leaseKey, sk: LEASE_SK },
      condition: owned(w.fc.runId, w.fc.fence),
    },
    write,
  ];
}

/**
 * Throw when the refused write is the lease check of {@link underLease}: StaleFenceError carrying the
 * lease's fence when a newer holder claimed it (a `replace` displaced us), LeaseLostError otherwise.
 * Nothing was written.
 */
function throwIfLeaseRefused(w: BusinessWrite, index: number, lease: Item | undefined, what: string): void {
  if (w.leaseTable === undefined || index !== 0) return;
  const stored = lease?.fence === undefined ? undefined : Number(lease.fence);
  if (stored !== undefined && stored > w.fc.fence)
    throw new StaleFenceError(`lease ${w.fc.leaseKey} (checked before ${what})`, w.fc.fence, stored, lease);
  throw new LeaseLostError(
    `lease ${w.fc.leaseKey} is no longer held by run ${w.fc.runId} (fence ${w.fc.fence}); ${what} not written`,
    lease,
  );
}

const businessTag = (op: ProtocolOp, { ref, fc }: BusinessWrite) => ({
  op,
  name: op,
  table: ref.tableName,
  key: ref.key,
  runId: fc.runId,
  fence: fc.fence,
});

/** Options of a fenced write. */
export interface FencedPutOptions {
  /**
   * Accept an item that exists but was never written under a fence (data from before cronfence, or
   * other tooling) and fence it from now on. An explicit, separate choice: otherwise "unfenced" means
   * "the item does not exist". @default false
   */
  readonly adoptUnfenced?: boolean;
}

/** A fenced write: the business write and its options. */
export type FencedWriteInput = BusinessWrite & { readonly options?: FencedPutOptions };

/** What a fenced write led to: written, or an item of another lease to reconcile ({@link crossLeaseWrite}). */
export type FencedWriteStep =
  | { readonly kind: 'written' }
  | { readonly kind: 'other-lease'; readonly lease: string; readonly fence: number };

/**
 * The attributes a fenced write sets: the job's as given, and the bookkeeping ({@link BusinessAttr}: fence,
 * lease, run, time; the same as insert-once).
 */
function fencedSets(w: BusinessWrite): Item {
  return {
    ...jobAttributes(w.ref, w.attributes, { withKey: false }),
    [BusinessAttr.fence]: w.fc.fence,
    [BusinessAttr.lease]: w.fc.leaseKey,
    [BusinessAttr.runId]: w.fc.runId,
    [BusinessAttr.writtenAtMs]: w.fc.nowMs,
  };
}

/**
 * Fenced write (step 3) on a protected item: the item does not exist, or it was last written — by a
 * fenced write or an insert-once, which carry the same `cronfence:fence` + `cronfence:lease` (an earlier
 * version's `fence` + `fencedBy`) — under the same lease with a fence no higher than ours (equal = the
 * same holder writing again); with `adoptUnfenced`, also an item that exists without a fence. Refused, the item decides (lib/core/results.ts): StaleFenceError
 * carrying the stored fence, ResultConflictError (unfenced, not adopted), or `other-lease`.
 */
export const fencedWrite: Operation<FencedWriteInput, FencedWriteStep> = {
  name: ProtocolOp.FencedWrite,
  request: (w) => {
    const [partitionKey] = Object.keys(w.ref.key);
    if (partitionKey === undefined)
      throw new ResultConflictError(`fenced write on ${w.ref.tableName} needs a key`);
    // Equal fences only from the same run: a fence is claimed by one run, so an equal fence of another
    // run means the lease's fences went back (the library table restored from a backup) — refused.
    const ours = or(notExists(partitionKey), notAheadOf(w.fc));
    return {
      tag: businessTag(ProtocolOp.FencedWrite, w),
      label: `fenced write ${describeRef(w.ref)}`,
      writes: underLease(w, {
        kind: 'update',
        table: w.ref.tableName,
        key: w.ref.key,
        condition: w.options?.adoptUnfenced ? or(ours, neverFenced()) : ours,
        update: { set: fencedSets(w) },
      }),
    };
  },
  accepted: () => ({ kind: 'written' }),
  refused: (item, i, w) => {
    throwIfLeaseRefused(w, i, item, `fenced write ${describeRef(w.ref)}`);
    const refusal = fencedWriteRefused(describeRef(w.ref), item, w.fc);
    if (refusal.kind === 'refused') throw refusal.error;
    return refusal;
  },
};

/** A cross-lease reconciliation: the write, the lease table, and the other lease and fence seen. */
export type CrossLeaseInput = BusinessWrite & {
  readonly leaseTable: string;
  readonly other: { readonly lease: string; readonly fence: number };
};

/**
 * Reconcile a protected item last written under ANOTHER lease (a resharded, renamed or moved job):
 * fences of different leases are never compared. One transaction: the other lease is not running
 * ({@link leaseInactive}), the writer still holds its own lease ({@link owned}: running, same owner and
 * fence), and the item is still as seen (same lease and fence); then our write. Not on a run's normal
 * path. Refused: ResultConflictError (that lease still runs, ours is lost, or the item moved).
 */
export const crossLeaseWrite: Operation<CrossLeaseInput, void> = {
  name: ProtocolOp.FencedWrite,
  request: (w) => ({
    tag: businessTag(ProtocolOp.FencedWrite, w),
    label: `cross-lease write ${describeRef(w.ref)}`,
    writes: [
      {
        kind: 'check',
        table: w.leaseTable,
        key: { pk: w.other.lease, sk: LEASE_SK },
        condition: leaseInactive(w.fc.nowMs),
      },
      // …and the writer still holds ITS lease: a stale holder of our lease (a write stuck in the network
      // past a successor) must not reclaim the item from the other lease under a fence ours outgrew.
      {
        kind: 'check',
        table: w.leaseTable,
        key: { pk: w.fc.leaseKey, sk: LEASE_SK },
        condition: owned(w.fc.runId, w.fc.fence),
      },
      {
        kind: 'update',
        table: w.ref.tableName,
        key: w.ref.key,
        condition: lastWrittenUnder(w.other.lease, eq, w.other.fence),
        update: { set: fencedSets(w) },
      },
    ],
  }),
  accepted: () => undefined,
  refused: (item, _i, w) => {
    throw crossLeaseRefused(describeRef(w.ref), w.other, item);
  },
};

/** The inserted row: the job's attributes as given, its key, and the bookkeeping ({@link BusinessAttr}). */
function insertedRow({ ref, attributes, fc }: BusinessWrite): Item {
  return {
    ...jobAttributes(ref, attributes, { withKey: true }),
    ...ref.key,
    [BusinessAttr.status]: 'succeeded',
    [BusinessAttr.fence]: fc.fence,
    [BusinessAttr.lease]: fc.leaseKey,
    [BusinessAttr.runId]: fc.runId,
    [BusinessAttr.writtenAtMs]: fc.nowMs,
  };
}

/**
 * Insert-once (step 4): ONE PutItem of the row (with {@link FenceContext.checkLease}, one transaction of
 * the lease check and the PutItem), born `succeeded` (`cronfence:status`), with
 * `cronfence:fence`, `cronfence:lease` and `cronfence:runId`, if no row has the key. Refused, the row decides: ours (lost response) → inserted; a result already there
 * → existing; an item a newer holder of our lease wrote → StaleFenceError carrying the row's fence.
 * (No two-phase `running` row and no take-over: no caller needed one; effects cover work that must
 * happen once outside the table.)
 * @throws ResultConflictError when the key is empty (nothing sent).
 */
export const insertOnce: Operation<BusinessWrite, InsertOnceResult> = {
  name: ProtocolOp.InsertOnce,
  request: (w) => {
    const [partitionKey] = Object.keys(w.ref.key);
    if (partitionKey === undefined)
      throw new ResultConflictError(`insert-once on ${w.ref.tableName} needs a key`);
    return {
      tag: businessTag(ProtocolOp.InsertOnce, w),
      label: `insert-once ${describeRef(w.ref)}`,
      writes: underLease(w, {
        kind: 'put',
        table: w.ref.tableName,
        key: w.ref.key,
        item: insertedRow(w),
        condition: notExists(partitionKey),
      }),
    };
  },
  accepted: (_a, w) => ({ status: 'inserted', item: insertedRow(w) }),
  refused: (item, i, w) => {
    throwIfLeaseRefused(w, i, item, `insert-once ${describeRef(w.ref)}`);
    const existing = item ?? {};
    switch (insertRefused(existing, w.fc)) {
      case 'own-write':
        return { status: 'inserted', item: existing };
      case 'existing':
        return { status: 'existing', item: existing };
      case 'stale':
        throw new StaleFenceError(
          describeRef(w.ref),
          w.fc.fence,
          Number(storedFence(existing)?.fence),
          existing,
        );
    }
  },
};
