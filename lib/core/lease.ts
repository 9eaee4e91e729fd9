/**
 * Pure lease decisions (docs/design.md steps 0–1, 6): what a claim's returned item means, and the
 * bounded set of recently succeeded slots. The stores turn these into requests; nothing here does I/O.
 */

import { base36 } from './digits.js';
import type { Mutable } from './mutable.js';
import { type FailedOccurrence, type PauseFields, type PauseState, pauseInForce } from './pause.js';
import { minuteOfText } from './schedule/calendar.js';

/**
 * The lease item as stored (`pk = JOB#<job>[#<shard>]`, `sk = LEASE`), with the pause an operator or
 * `pauseOnFailure` wrote on it (lib/core/pause.ts).
 */
export interface LeaseItem extends PauseFields {
  /** Owner token of the current or last holder: the run id of one invocation attempt. */
  readonly owner?: string;
  /** Fencing token: incremented by every claim, never reset (the item is never deleted). */
  readonly fence?: number;
  /** Lease expiry by the claimer's clock, epoch ms; 0 after a release. */
  readonly leaseUntilMs?: number;
  /**
   * The same for a person reading the item: `leaseUntilMs` as an ISO instant while held, `released`
   * (or `unrecorded`) after a release ({@link readableLeaseUntil}). Absent on items last written
   * before it existed; never read by the protocol.
   */
  readonly leaseUntil?: string;
  /** Trigger of the current or last holder's run (`schedule`, `retry`, `manual`, `catch-up`). */
  readonly trigger?: string;
  /** Who asked for the current or last holder's run, for manual runs only. */
  readonly requestedBy?: string;
  /** The slot id of the latest run that released after succeeding (the readable head of `doneSlots`). */
  readonly lastSucceeded?: string;
  /** Slot id the current or last holder runs. */
  readonly slot?: string;
  /**
   * `running` while held, `released` after a release, `unrecorded` after the release of a run that could
   * not write its record (its authority is over like after any release, but it still awaits its
   * `abandoned` mark). A takeover of `running` means the holder died. See {@link awaitsAbandonMark}.
   */
  readonly holderState?: 'running' | 'released' | 'unrecorded';
  readonly acquiredAtMs?: number;
  readonly renewedAtMs?: number;
  readonly releasedAtMs?: number;
  /** Lambda request id of the holder (diagnostics only: retries reuse it, so it is not an owner). */
  readonly lambdaRequestId?: string;
  /** Recently succeeded slot ids, bounded (see {@link nextDoneSlots}). */
  readonly doneSlots?: ReadonlySet<string>;
  /**
   * The holder the latest claim displaced (`owner`, `slot`, `leaseUntilMs`, `holderState` before it;
   * {@link NO_HOLDER} for the first claim). Lets a claim whose response was lost still find it.
   */
  readonly prevOwner?: string;
  readonly prevSlot?: string;
  readonly prevLeaseUntilMs?: number;
  readonly prevHolderState?: string;
  /**
   * Definition id the done set belongs to (see `definitionId` in liveness.ts), written by the release
   * that writes the done set. A claim under another definition ignores the done set.
   */
  readonly def?: string;
  /**
   * Holders that claimed and have not released cleanly, oldest first (see `OpenHolder`): every claim
   * appends itself, a release that marked the earlier ones removes the list. A claimer marks each
   * earlier entry `abandoned` (conditionally: a record already written wins), however deep the chain.
   */
  readonly open?: readonly StoredOpenHolder[];
  /** The job's shard count, on the lease items of a sharded job only (see `ClaimRequest.shards`). */
  readonly shards?: number;
  /**
   * The restore point, epoch ms, when the library table was restored from a backup or point-in-time
   * recovery (written by `markRestored`, lib/store/restore.ts, with the fence raised past every fence
   * issued since): effect records written after it may be gone, so a run of this lease never sends an
   * effect a provider could not deduplicate (docs/design.md "Identity across the job's lifecycle").
   * Removed by `clearRestoreMark` once the operator reconciled the effects.
   */
  readonly restoredAtMs?: number;
  /**
   * Overlap policy `buffer-*`: the slots waiting for the lease, as compact done keys ({@link doneKey});
   * a string set, absent when empty (lib/core/overlap.ts, docs/design.md "Overlap policies").
   */
  readonly buffered?: ReadonlySet<string>;
  /** Overlap policy `replace`: the run (and its fence) the latest replacing claim displaced while it ran. */
  readonly replacedRunId?: string;
  readonly replacedFence?: number;
  /**
   * Overlap policy `replace`: the lowest fence of the chain of displacements that ends at
   * `replacedFence` — each holder from this fence to `replacedFence` was displaced by the next one's
   * replacing claim — so a displaced run that wakes after its successor was displaced in turn still
   * finds itself named ({@link wasReplaced}).
   */
  readonly replacedFromFence?: number;
}

/**
 * True when the lease item shows that a replacing claim displaced the run `runId` with `fence`: it is
 * the latest displaced (`replacedRunId`), or its fence lies in the chain of displacements
 * `replacedFromFence`..`replacedFence` (a fence is claimed by one run only). A chain ends at a claim
 * that did not replace; a run displaced in an earlier chain is not found once a new chain started.
 */
export function wasReplaced(item: LeaseItem | undefined, runId: string, fence: number): boolean {
  if (item?.replacedRunId === runId) return true;
  const last = item?.replacedFence;
  if (last === undefined) return false;
  return fence <= Number(last) && fence >= Number(item?.replacedFromFence ?? last);
}

/**
 * One entry of {@link LeaseItem.open} as stored: a claim that has not (yet) been released. Its fence is
 * not stored (the claim's `ADD` decides it): every claim appends exactly one entry and adds exactly 1,
 * so entry `i` of `n` holds fence `item.fence - (n - 1 - i)` (see {@link openHolders}).
 */
export interface StoredOpenHolder {
  readonly runId: string;
  readonly slot: string;
  readonly leaseUntilMs: number;
}

/** An open claim with its fence. */
export interface OpenHolder extends StoredOpenHolder {
  readonly fence: number;
}

/** The item's open claims with their fences (oldest first). */
export function openHolders(item: LeaseItem | undefined): OpenHolder[] {
  const list = item?.open;
  // Every run's claim usually finds none (its predecessor released): no mapping made for an empty list.
  if (list === undefined || list.length === 0) return [];
  const top = item?.fence ?? 0;
  return list.map((h, i) => ({
    runId: String(h.runId),
    slot: String(h.slot),
    leaseUntilMs: Number(h.leaseUntilMs ?? 0),
    fence: top - (list.length - 1 - i),
  }));
}

/**
 * True when a holder in `holderState` never wrote its record: it died holding the lease (`running`) or
 * released without a record (`unrecorded`). The next claimer and the sweeper mark it `abandoned`
 * (conditionally: a record written since wins), so every claimed fence ends with one terminal record.
 */
export function awaitsAbandonMark(holderState: string | undefined): boolean {
  return holderState === 'running' || holderState === 'unrecorded';
}

/** Longest `requestedBy` kept on the lease item (the run record keeps the whole name). */
export const LEASE_REQUESTER_MAX_CHARS = 64;

/**
 * The readable form of a lease's expiry (`leaseUntil`): the ISO instant while held
 * (`2026-03-10T09:01:05.000Z`), the word `released` (or `unrecorded`) after a release, so a person
 * reading the item never has to decode `leaseUntilMs = 0`. The release's time is `releasedAtMs`: the
 * lease item's 1 KB budget (docs/design.md "Lease item size") has no room for a second instant there.
 * @param atMs the expiry, epoch ms (used only while `running`).
 */
export function readableLeaseUntil(state: 'running' | 'released' | 'unrecorded', atMs = 0): string {
  return state === 'running' ? new Date(atMs).toISOString() : state;
}

/** `prevOwner` / `prevSlot` of a lease item whose latest claim displaced nobody. */
export const NO_HOLDER = '-';

/** The holder the latest claim displaced, as recorded on the item by that claim. */
function displaced(item: LeaseItem): PreviousHolder | undefined {
  if (item.prevOwner === undefined || item.prevOwner === NO_HOLDER || item.prevSlot === undefined)
    return undefined;
  return {
    runId: item.prevOwner,
    slot: item.prevSlot,
    fence: (item.fence ?? 1) - 1,
    leaseUntilMs: item.prevLeaseUntilMs ?? 0,
    abandoned: awaitsAbandonMark(item.prevHolderState),
  };
}

/** The previous holder a claim displaced, from the claim's ALL_OLD item. */
export interface PreviousHolder {
  readonly runId: string;
  readonly slot: string;
  readonly fence: number;
  readonly leaseUntilMs: number;
  /** When the previous holder claimed, epoch ms by its clock (absent when the item did not say). */
  readonly acquiredAtMs?: number;
  /** The previous holder's trigger and requester, as its claim stored them (absent on older items). */
  readonly trigger?: string;
  readonly requestedBy?: string;
  /** True when the previous holder never released: its run is to be recorded `abandoned`. */
  readonly abandoned: boolean;
  /**
   * The holder the previous holder's own claim displaced (the old item's `prev*`). When that claim's
   * response was lost and every retry failed, the previous holder never learnt it held the lease and
   * never marked this one: the new claimer marks it too (marking is conditional, so twice is harmless).
   */
  readonly displaced?: PreviousHolder;
}

/** Outcome of a claim, decided from the item DynamoDB returned. */
export type ClaimDecision =
  | {
      readonly kind: 'acquired';
      readonly fence: number;
      readonly doneSlots: ReadonlySet<string>;
      readonly previous?: PreviousHolder;
      readonly ownWrite: boolean;
      /** Earlier claims that never released (the item's `open` list before ours), oldest first. */
      readonly open: readonly OpenHolder[];
      /** `pauseOnFailure` jobs: the failure streak before this run (the item's `failedSlots`). */
      readonly failedSlots?: readonly FailedOccurrence[];
      /** The lease item's restore mark ({@link LeaseItem.restoredAtMs}), when the table was restored. */
      readonly restoredAtMs?: number;
    }
  /** A pause is in force on the lease (docs/design.md "Pause"): the delivery is recorded `skipped / paused`. */
  | { readonly kind: 'paused'; readonly pause: PauseState; readonly fence: number }
  | {
      readonly kind: 'held';
      readonly holderRunId: string;
      readonly holderSlot: string;
      readonly leaseUntilMs: number;
      readonly fence: number;
      readonly sameSlot: boolean;
      /** When the holder last claimed or renewed, by its clock, epoch ms (0 when unknown). */
      readonly renewedAtMs: number;
      /** When the holder claimed, by its clock, epoch ms (0 when unknown). */
      readonly acquiredAtMs: number;
      /** `running` while the holder holds (its lease may still have expired: see `leaseUntilMs`). */
      readonly holderState?: string;
      /** Overlap policy `buffer-*`: the slot ids waiting on the lease item, in slot order. */
      readonly buffered: readonly string[];
      /** Overlap policy `replace`: the item's chain of displacements (`replacedFromFence`..`replacedFence`). */
      readonly replaced?: { readonly fromFence: number; readonly toFence: number };
    }
  | { readonly kind: 'already-succeeded'; readonly fence: number };

/**
 * Decide after a successful claim: the new fence is the old one + 1, and an old holder that never
 * released is abandoned (we could only claim because its lease had expired).
 */
export function decideClaimSucceeded(old: LeaseItem | undefined, me: { def?: string } = {}): ClaimDecision {
  const oldFence = old?.fence ?? 0;
  return acquired(oldFence + 1, false, openHolders(old), previousHolder(old, oldFence), old, me.def);
}

/** The holder a claim's returned item names (the one the claim displaced), if any. */
function previousHolder(old: LeaseItem | undefined, oldFence: number): PreviousHolder | undefined {
  if (old?.owner === undefined || old.slot === undefined) return undefined;
  // Optional members assigned when present (every claim decides one: no spread temporaries).
  const previous: Mutable<PreviousHolder> = {
    runId: old.owner,
    slot: old.slot,
    fence: oldFence,
    leaseUntilMs: old.leaseUntilMs ?? 0,
    abandoned: awaitsAbandonMark(old.holderState),
  };
  if (old.acquiredAtMs !== undefined) previous.acquiredAtMs = old.acquiredAtMs;
  if (old.trigger !== undefined) previous.trigger = old.trigger;
  if (old.requestedBy !== undefined) previous.requestedBy = old.requestedBy;
  if (previous.abandoned) {
    const d = displaced(old);
    if (d?.abandoned) previous.displaced = d;
  }
  return previous;
}

/**
 * The item's done set as it applies to a claim under definition `def`, as slot ids (decoded from
 * their stored keys, {@link slotIdOfDoneKey}): empty when the item's done set was written under another
 * definition (a zone, schedule or shard-count change between deploys).
 */
export function doneSlotsFor(item: LeaseItem | undefined, def: string | undefined): ReadonlySet<string> {
  const ids = new Set<string>();
  for (const key of doneKeysFor(item, def) ?? []) ids.add(slotIdOfDoneKey(key));
  return ids;
}

/** The item's stored done set, unless it is absent or was written under another definition than `def`. */
function doneKeysFor(item: LeaseItem | undefined, def: string | undefined): ReadonlySet<string> | undefined {
  if (def !== undefined && item?.def !== undefined && item.def !== def) return undefined;
  return item?.doneSlots;
}

/**
 * {@link doneSlotsFor} in its stored form, not decoded: undefined when the item's set holds a plain
 * slot id (a set written before the compact keys), which only the decoded form reads exactly.
 */
function storedDoneSlots(item: LeaseItem | undefined, def: string | undefined): StoredDoneSlots | undefined {
  const stored = doneKeysFor(item, def) ?? new Set<string>();
  return allDoneKeys(stored) ? new StoredDoneSlots(stored) : undefined;
}

/** True while {@link claimDoneSlots} reads a decision's `doneSlots`: its getter then gives the stored form. */
let readingStored = false;

/**
 * An acquired decision on `item` (the claim's returned item): its fence, whether the write was this
 * run's own earlier try, the open holders, the displaced holder, the item's failure streak and restore
 * mark, and its `doneSlots` for `def`, an own enumerable accessor read like a plain property. A done
 * set of compact keys is decoded when first read (a run reads the stored form through
 * {@link claimDoneSlots} and never decodes it); another set is decoded at once.
 */
function acquired(
  fence: number,
  ownWrite: boolean,
  open: OpenHolder[],
  previous: PreviousHolder | undefined,
  item: LeaseItem | undefined,
  def: string | undefined,
): ClaimDecision {
  const stored = storedDoneSlots(item, def);
  const state: DoneSlotsState = {
    stored,
    // A set holding a plain slot id (written before the compact keys) is read decoded at once.
    ids: stored === undefined ? doneSlotsFor(item, def) : undefined,
  };
  // A plain object, as every decision is, its `doneSlots` an own enumerable getter of `state`: a spread,
  // a Proxy, an `Object.create` or a descriptor copy of the decision reads the done set too. The getter
  // is a closure made per claim; on the claim path that costs less than two `Object.defineProperty`
  // calls (one shared accessor and a symbol-keyed state), which go through V8's C++ (BENCHMARKS.md
  // section 9, "Digits written in JavaScript").
  const decision: Mutable<AcquiredDecision> = {
    kind: 'acquired',
    fence,
    ownWrite,
    open,
    get doneSlots() {
      return doneSlotsOf(state);
    },
  };
  // Optional members assigned when present (every claim decides one: no spread temporaries).
  if (previous) decision.previous = previous;
  if (item?.failedSlots !== undefined) decision.failedSlots = item.failedSlots;
  if (typeof item?.restoredAtMs === 'number') decision.restoredAtMs = item.restoredAtMs;
  return decision;
}

type AcquiredDecision = Extract<ClaimDecision, { kind: 'acquired' }>;

/** An acquired decision's done set: in its stored form when it holds compact keys only, and as slot ids once decoded. */
interface DoneSlotsState {
  readonly stored: StoredDoneSlots | undefined;
  ids: ReadonlySet<string> | undefined;
}

/** What an acquired decision's `doneSlots` reads: the stored form inside {@link claimDoneSlots}, else the slot ids. */
function doneSlotsOf(state: DoneSlotsState): ReadonlySet<string> {
  if (readingStored && state.stored !== undefined) return state.stored;
  state.ids ??= new Set(state.stored);
  return state.ids;
}

/**
 * The done set of an acquired claim as the run carries it to its release: the same slots as
 * `decision.doneSlots`, in their stored form when the claim's item held compact keys (a
 * {@link StoredDoneSlots}: no slot is decoded or encoded on the way), else that set.
 */
export function claimDoneSlots(decision: { readonly doneSlots: ReadonlySet<string> }): ReadonlySet<string> {
  readingStored = true;
  try {
    return decision.doneSlots;
  } finally {
    readingStored = false;
  }
}

/** Longest {@link doneKey}: 6 base-36 digits and the `z` of a UTC instant id. Any slot id is longer. */
const DONE_KEY_MAX_CHARS = 7;

/** True when every string of `stored` is a compact done key (a plain slot id has 16 characters or more). */
function allDoneKeys(stored: Iterable<string>): boolean {
  for (const key of stored) if (key.length > DONE_KEY_MAX_CHARS) return false;
  return true;
}

/**
 * A done set held in its stored form (each slot's {@link doneKey}) and read as slot ids: `has` encodes
 * the one id asked for, `size` is the keys', iteration decodes. A claim's done set is read this way
 * (a run asks for one or two ids), and {@link nextDoneSlots} keeps it in this form (keys sort like their
 * slot ids), so a run neither decodes nor re-encodes the set it carries from claim to release. Holds
 * keys only (see {@link claimDoneSlots}); read-only, like every done set.
 */
export class StoredDoneSlots implements ReadonlySet<string> {
  /** @param stored - the stored keys (never changed through this object; not copied). */
  constructor(readonly stored: ReadonlySet<string>) {}

  get size(): number {
    return this.stored.size;
  }

  has(slotId: string): boolean {
    return this.stored.has(doneKey(slotId));
  }

  /**
   * True when `slotId` is older than every slot of the set (false for an empty set). Compared in the
   * stored form when the id has a compact key (keys sort like their slot ids), so no key is decoded;
   * the first key not above the id's ends the scan (the newest slot, a run's usual one, ends it at once).
   */
  precedesAll(slotId: string): boolean {
    const own = doneKey(slotId);
    if (own.length > DONE_KEY_MAX_CHARS) {
      const oldest = this.oldest();
      return oldest !== undefined && slotId < oldest;
    }
    for (const key of this.stored) if (key <= own) return false;
    return this.stored.size > 0;
  }

  /** The oldest slot id of the set (the smallest key, decoded), or undefined when it is empty. */
  oldest(): string | undefined {
    let min: string | undefined;
    for (const key of this.stored) if (min === undefined || key < min) min = key;
    return min === undefined ? undefined : slotIdOfDoneKey(min);
  }

  *values(): SetIterator<string> {
    for (const key of this.stored) yield slotIdOfDoneKey(key);
  }

  keys(): SetIterator<string> {
    return this.values();
  }

  *entries(): SetIterator<[string, string]> {
    for (const id of this.values()) yield [id, id];
  }

  forEach(f: (value: string, value2: string, set: ReadonlySet<string>) => void, thisArg?: unknown): void {
    for (const id of this.values()) f.call(thisArg, id, id, this);
  }

  [Symbol.iterator](): SetIterator<string> {
    return this.values();
  }
}

/** Width of a done key's base-36 minute count: 36^6 minutes reach past the year 6000. */
const DONE_KEY_WIDTH = 6;
const DONE_KEY = /^([0-9a-z]{6})(z?)$/;

/**
 * The stored form of a slot id in the lease item's done set (`doneSlots`): the slot's minute counted
 * from 1970-01-01T00:00 in base 36, 6 characters (`2026-03-28T17:00` → `0hlz0c`), plus `z` for a UTC
 * instant id (`2026-03-28T17:00:00Z` → `0hlz0cz`) — 6–7 bytes instead of 16–20, so the done set of 32
 * slots takes ~220 B of the item whatever the job's name. A per-slot function (never relative to a
 * base that moves), so the claim's `NOT contains(doneSlots, key)` tests membership exactly and keys
 * sort like their slot ids. Any other id (none is produced today) is stored as it is: it contains a
 * `-`, so it never equals a key. Inverse: {@link slotIdOfDoneKey}.
 */
export function doneKey(slotId: string): string {
  return doneKeys.get(slotId);
}

function encodeDoneKey(slotId: string): string {
  // A local minute `yyyy-MM-ddTHH:mm` (16 characters) or a UTC instant id `yyyy-MM-ddTHH:mm:00Z` (20).
  const utc = slotId.length === 20 && slotId.endsWith(':00Z');
  if (slotId.length !== 16 && !utc) return slotId;
  // Only a real calendar minute has a key (no `2026-02-30T25:61`): else the id is kept as it is.
  const minutes = minuteOfText(slotId);
  if (!(minutes >= 0)) return slotId;
  const digits = base36(minutes);
  if (digits.length > DONE_KEY_WIDTH) return slotId;
  return digits.padStart(DONE_KEY_WIDTH, '0') + (utc ? 'z' : '');
}

/** The slot id of a stored done key ({@link doneKey}'s inverse); any other string is an id as stored. */
export function slotIdOfDoneKey(key: string): string {
  return slotIds.get(key);
}

function decodeDoneKey(key: string): string {
  const m = DONE_KEY.exec(key);
  if (!m) return key;
  const iso = new Date(Number.parseInt(m[1] as string, 36) * 60_000).toISOString();
  return m[2] === 'z' ? `${iso.slice(0, 17)}00Z` : iso.slice(0, 16);
}

/**
 * Decoding is pure (a date conversion), and a process meets the same few slots again (its run's slot,
 * a claim's, the sweeper's and the CLI's reads of a done set): the recent ones are kept. Bounded: a
 * cache past {@link DONE_KEY_CACHE_SIZE} entries starts over (a process sees a few hundred slots a day).
 */
const DONE_KEY_CACHE_SIZE = 4_096;

/**
 * A pure string function's last result, answered without computing again (a run asks for its own
 * slot's key several times in a row), and (`keep`) its recent ones in a map.
 */
class Memo {
  private readonly cache: Map<string, string> | undefined;
  private lastInput = '';
  private lastOutput: string;

  constructor(
    private readonly compute: (s: string) => string,
    keep: boolean,
  ) {
    this.cache = keep ? new Map() : undefined;
    this.lastOutput = compute('');
  }

  get(input: string): string {
    if (input === this.lastInput) return this.lastOutput;
    const cache = this.cache;
    let out = cache?.get(input);
    if (out === undefined) {
      out = this.compute(input);
      if (cache !== undefined) {
        if (cache.size >= DONE_KEY_CACHE_SIZE) cache.clear();
        cache.set(input, out);
      }
    }
    this.lastInput = input;
    this.lastOutput = out;
    return out;
  }
}

/** Encoding is arithmetic on the id's characters: only the last one is kept. */
const doneKeys = new Memo(encodeDoneKey, false);
const slotIds = new Memo(decodeDoneKey, true);

/**
 * Most bytes the done set may take in the lease item (its stored keys; DynamoDB sizes a string set as
 * the sum of its strings). With the longest job name, a shard suffix, a claim's open entry and every
 * other attribute the item then stays under 1 KB, so a claim and a release cost 1 WCU each (see
 * docs/design.md "Lease item size"). The default 32 slots take 192–224 B.
 */
export const DONE_SET_MAX_BYTES = 256;

/** The done set as stored: each slot's {@link doneKey} (a {@link StoredDoneSlots}' own keys, not copied). */
export function storedDoneSet(done: ReadonlySet<string>): ReadonlySet<string> {
  if (done instanceof StoredDoneSlots) return done.stored;
  const keys = new Set<string>();
  for (const id of done) keys.add(doneKey(id));
  return keys;
}

/**
 * Decide after a claim's condition failed, from the current item (ALL_OLD on condition failure).
 * If the item names us as owner, our earlier try was applied and only its response was lost
 * (protocol step 0): we hold the lease with the stored fence, and the item's `prev*` attributes name
 * the holder that try displaced (to be marked abandoned if it never released).
 */
export function decideClaimFailed(
  current: LeaseItem | undefined,
  me: { runId: string; slotId: string; force?: boolean; def?: string; nowMs?: number },
): ClaimDecision {
  if (current?.owner === me.runId && current.fence !== undefined) {
    const previous = displaced(current);
    return acquired(
      current.fence,
      true,
      openHolders(current).filter((h) => h.runId !== me.runId),
      previous,
      current,
      me.def,
    );
  }
  // Paused: the claim's condition refused whatever else holds (a done or held slot too), so every
  // delivery of a paused job is recorded `skipped / paused` naming the pause.
  const pause = me.nowMs === undefined ? undefined : pauseInForce(current, me.nowMs);
  if (pause) return { kind: 'paused', pause, fence: current?.fence ?? 0 };
  if (!me.force && (storedDoneSlots(current, me.def) ?? doneSlotsFor(current, me.def)).has(me.slotId)) {
    return { kind: 'already-succeeded', fence: current?.fence ?? 0 };
  }
  return {
    kind: 'held',
    holderRunId: current?.owner ?? '(unknown)',
    holderSlot: current?.slot ?? '(unknown)',
    leaseUntilMs: current?.leaseUntilMs ?? 0,
    fence: current?.fence ?? 0,
    sameSlot: current?.slot === me.slotId,
    renewedAtMs: current?.renewedAtMs ?? current?.acquiredAtMs ?? 0,
    acquiredAtMs: current?.acquiredAtMs ?? 0,
    ...(current?.holderState !== undefined && { holderState: current.holderState }),
    buffered: [...(current?.buffered ?? [])].map(slotIdOfDoneKey).sort(),
    ...(current?.replacedFence !== undefined && {
      replaced: {
        fromFence: Number(current.replacedFromFence ?? current.replacedFence),
        toFence: Number(current.replacedFence),
      },
    }),
  };
}

/**
 * The done set after `slotId` succeeded: add it and keep the `max` newest ids (slot ids sort by time:
 * ISO local or UTC stamps) that fit in {@link DONE_SET_MAX_BYTES} once stored — so a `rememberSlots`
 * above what fits (about 36 slots) is capped there and the lease item stays under 1 KB. Computed from
 * the claim's returned item, so release needs no read.
 */
export function nextDoneSlots(
  done: ReadonlySet<string>,
  slotId: string,
  max: number,
  maxBytes = DONE_SET_MAX_BYTES,
): ReadonlySet<string> {
  const own = doneKey(slotId);
  // Keys sort like their slot ids and are ASCII (a byte a character): the stored form is kept as it is.
  if (done instanceof StoredDoneSlots && own.length <= DONE_KEY_MAX_CHARS) {
    const keys = [...done.stored];
    if (!done.stored.has(own)) keys.push(own);
    keys.sort();
    let bytes = 0;
    let first = keys.length;
    for (let i = keys.length - 1; i >= 0; i--) {
      bytes += (keys[i] as string).length;
      if (keys.length - i > max || (first < keys.length && bytes > maxBytes)) break;
      first = i;
    }
    return new StoredDoneSlots(new Set(first === 0 ? keys : keys.slice(first)));
  }
  const all = [...done];
  if (!done.has(slotId)) all.push(slotId);
  all.sort();
  const keys: string[] = [];
  let bytes = 0;
  for (let i = all.length - 1; i >= 0; i--) {
    const key = doneKey(all[i] as string);
    bytes += Buffer.byteLength(key);
    if (keys.length >= max || (keys.length > 0 && bytes > maxBytes)) break;
    keys.push(key);
  }
  return new Set(all.slice(all.length - keys.length));
}

/**
 * The clock-skew budget: the most any two workers' clocks may disagree, ms (docs/clock-skew.md).
 * A holder stops acting this long before its lease ends by its own clock, so a claimer whose clock is
 * up to this much ahead never overlaps it. Safety (fences, insert-once) never depends on it.
 */
export const CLOCK_SKEW_BUDGET_MS = 200;

/**
 * Lease expiry for a claim or renewal: `now + lease`, but never past the Lambda deadline plus a margin
 * (docs/design.md step 1: the lease never outlives the Lambda timeout).
 */
export function leaseUntil(nowMs: number, leaseMs: number, remainingMs: number, marginMs = 1_000): number {
  return nowMs + Math.min(leaseMs, Math.max(0, remainingMs) + marginMs);
}
