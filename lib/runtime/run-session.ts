/**
 * The run use case for one invocation attempt (docs/design.md steps 0–6): claim, run the body under
 * a kept lease, then write exactly one run record and release. The middy middleware calls it.
 */
import { shouldRetry } from '../core/error-model.js';
import type { InvocationEvent } from '../core/event.js';
import { StaleFenceError } from '../core/fence-errors.js';
import { InvalidEventError } from '../core/input-errors.js';
import { boundDetails } from '../core/item-bounds.js';
import { type JobDefinition, jobKeyOf } from '../core/job-definition.js';
import {
  CLOCK_SKEW_BUDGET_MS,
  type ClaimDecision,
  claimDoneSlots,
  leaseUntil,
  nextDoneSlots,
  type OpenHolder,
  type PreviousHolder,
} from '../core/lease.js';
import { definitionId, holdersToMark, needsDoneCheck, sameSlotHeldAction } from '../core/liveness.js';
import { Outcome, Reason, Trigger } from '../core/outcomes.js';
import { type Overlap, OverlapPolicy, overlapOf } from '../core/overlap.js';
import { type Predecessor, predecessorOf } from '../core/overlap-previous.js';
import { type FailedOccurrence, failurePause, nextFailedSlots, type PauseFields } from '../core/pause.js';
import type { ClaimOverlap, ClaimRequest, HolderSeen, ReleaseRequest, RunRecord } from '../core/ports.js';
import type { ScheduleExpression } from '../core/schedule/expression.js';
import { type Slot, slotFromLocalTime, slotFromScheduledTime } from '../core/schedule/slot.js';
import { MAX_SLOT_AHEAD_MS, validateSlot } from '../core/schedule/validate-slot.js';
import { LeaseLostError, StoreError } from '../store/errors.js';
import { mayRunAfterRecovery, withRecovered } from './after-previous-recovery.js';
import type { RuntimeDeps } from './deps.js';
import { DeadlineError, LeaseHeldError, TerminatedError } from './errors.js';
import { notify, type RuntimeEventBody } from './events.js';
import { createJobContext, type JobContext, type JobContextBinding, type RunPort } from './job-context.js';
import { effectsOf } from './job-effects.js';
import { LeaseKeeper } from './lease-keeper.js';
import { arriveUnderHolder, replacedReason } from './overlap-arrival.js';
import {
  errorSummary,
  type LambdaLikeContext,
  MIN_REMAINING_TO_CLAIM_MS,
  newRunId,
  type RunSummary,
} from './run-summary.js';

export {
  type LambdaLikeContext,
  MIN_REMAINING_TO_CLAIM_MS,
  newRunId,
  type RunSummary,
} from './run-summary.js';

import type { Mutable } from '../core/mutable.js';

/**
 * Lambda time kept back when the run's record waits for the body's operations under way, ms: enough
 * for the release and the record themselves.
 */
export const FINISH_MARGIN_MS = 1_000;

/** The done set of a run that has not claimed (shared: a done set is never changed in place). */
const NO_SLOTS: ReadonlySet<string> = new Set();

/** A claim that finds no earlier holder to mark (every run's usual claim; shared, never changed). */
const NONE_TO_MARK: { readonly toMark: ReturnType<typeof holdersToMark>; readonly alive: number } =
  Object.freeze({
    toMark: Object.freeze([]) as unknown as ReturnType<typeof holdersToMark>,
    alive: 0,
  });

/** Claim attempts of one invocation when the same slot is held by a holder that may be dead. */
const MAX_CLAIM_ROUNDS = 4;

/** How a run releases its lease (see `RunSession.release`). */
interface ReleaseOptions {
  /** The run succeeded: its slot joins the done set. */
  readonly succeeded: boolean;
  /** The run's record was written. @default true */
  readonly recorded?: boolean;
}

/** One invocation attempt's run. */
export class RunSession implements RunPort {
  readonly runId: string;
  readonly slot: Slot;
  private readonly startedAtMs: number;
  private fence: number | undefined;
  private doneSlots: ReadonlySet<string> = NO_SLOTS;
  /** After-previous: the latest success of a taken-over holder whose release never landed (its slot id). */
  private recoveredSlot: string | undefined;
  /** The lease item's restore mark, when the library table was restored (effects are then guarded). */
  private restoredAtMs: number | undefined;
  /** `pauseOnFailure` jobs: the failure streak the claim saw (lib/core/pause.ts). */
  private failedSlots: readonly FailedOccurrence[] | undefined;
  /** Set by a failure that completes the streak: the release writes it. */
  private failureStreak: { slots: FailedOccurrence[]; pause?: PauseFields } | undefined;
  private keeper: LeaseKeeper | undefined;
  /** The lease keeper (not started) and job context of a won claim, built once (see {@link prepare}). */
  private prepared: { readonly keeper: LeaseKeeper; readonly ctx: JobContext } | undefined;
  /** The fence the job context shows: the won claim's. */
  private ctxFence = 0;
  private finished = false;
  /** The summary of the record this run stored last: once stored, what the handler reports. */
  private stored: RunSummary | undefined;
  /** Protected operations the body started and that have not settled yet (made at the first one). */
  private inflight: Set<Promise<unknown>> | undefined;
  private readonly details: Record<string, unknown> = {};
  /** Definition id of this run's slot ids (zone, schedule, DST policy, shard count). */
  readonly defId: string;
  /** Why the current definition refuses the event's slot (recorded `skipped / not-on-schedule`). */
  private readonly refusal: InvalidEventError | undefined;
  /** True once every earlier open claim was marked (the release may then clear the list). */
  private marked = false;
  /** The record of an invocation whose claim failed with a StoreError (the middleware attaches it). */
  unclaimedFailure: RunSummary | undefined;
  /** The job's overlap policy (lib/core/overlap.ts). */
  readonly overlap: Overlap;
  /** `after-previous`: the occurrence before this slot, whose success the claim requires. */
  private readonly predecessor: Predecessor | undefined;
  /** `buffer-*`: the first buffered slot this run's release found waiting. */
  private nextBuffered: string | undefined;

  constructor(
    private readonly def: JobDefinition,
    expression: ScheduleExpression,
    private readonly deps: RuntimeDeps,
    private readonly event: InvocationEvent,
    private readonly lambda: LambdaLikeContext,
  ) {
    this.startedAtMs = deps.clock.now();
    this.runId = newRunId(this.startedAtMs);
    this.defId = definitionIdOf(def);
    const slot =
      event.slotLocalTime !== undefined && expression.kind === 'cron'
        ? slotFromLocalTime(event.slotLocalTime, expression, def.timeZone, def.businessDate)
        : slotFromScheduledTime(event.scheduledTimeMs, expression, def.timeZone, def.businessDate);
    try {
      validateSlot(
        expression,
        slot,
        event.scheduledTimeMs,
        event.slotLocalTime !== undefined && expression.kind === 'cron',
        this.startedAtMs,
      );
      this.slot = slot;
    } catch (err) {
      // A time in the future or before 1970 is a bad event (thrown, nothing written). A real time that
      // is not an occurrence of the CURRENT schedule (a retry of an occurrence of the schedule before a
      // redeploy) is recorded under its UTC minute, a slot id no occurrence uses, and not run.
      const year = new Date(event.scheduledTimeMs).getUTCFullYear();
      if (
        !(err instanceof InvalidEventError) ||
        err.field !== 'scheduledTime' ||
        event.scheduledTimeMs > this.startedAtMs + MAX_SLOT_AHEAD_MS ||
        year < 1970
      )
        throw err;
      this.refusal = err;
      this.slot = { ...slot, id: `${new Date(event.scheduledTimeMs).toISOString().slice(0, 16)}Z` };
    }
    this.overlap = overlapOf(def);
    this.predecessor =
      this.overlap.policy === OverlapPolicy.AfterPrevious && !this.refusal
        ? predecessorOf(def, expression, this.slot)
        : undefined;
  }

  /** The claim's overlap guards: none under `skip` and `replace` (a claim request as before). */
  private get claimOverlap(): ClaimOverlap | undefined {
    // The start of a waiting slot (release path, sweeper) names itself; any other delivery queues.
    if (this.overlap.maxBuffered > 0)
      return {
        buffer:
          this.event.trigger === Trigger.CatchUp && this.event.reason === 'buffered'
            ? 'own-turn'
            : 'none-waiting',
      };
    const p = this.predecessor;
    if (p !== undefined)
      return p.id === undefined
        ? { firstSlot: true }
        : { previousSlotId: p.id, ...(p.fromFirstSlot && { fromFirstSlot: true }) };
    return undefined;
  }

  /** The job's identity in the table (its `id`, else its name): the key of its lease, records and effects. */
  private get jobKey(): string {
    return jobKeyOf(this.def);
  }

  /** True once the lease is ours (the finish must record and release). */
  get claimed(): boolean {
    return this.fence !== undefined;
  }

  /** Claim the lease. Returns the job context, or the summary of a skip (already recorded). @throws StoreError */
  async begin(): Promise<{ kind: 'run'; ctx: JobContext } | { kind: 'skipped'; summary: RunSummary }> {
    const remaining = this.lambda.getRemainingTimeInMillis();
    const stop = this.lambda.stopSignal;
    if (stop?.aborted) {
      // Stopped before the claim (an ECS task's SIGTERM): nothing claimed, the slot left to catch-up.
      this.emit({ type: 'claim-lost', reason: Reason.Terminated });
      return {
        kind: 'skipped',
        summary: await this.record(Outcome.Failed, Reason.Terminated, { error: stop.reason }),
      };
    }
    if (remaining < MIN_REMAINING_TO_CLAIM_MS) {
      return { kind: 'skipped', summary: await this.record(Outcome.Skipped, Reason.Deadline) };
    }
    if (this.refusal) {
      this.emit({ type: 'claim-lost', reason: Reason.NotOnSchedule });
      return {
        kind: 'skipped',
        summary: await this.record(Outcome.Skipped, Reason.NotOnSchedule, { error: this.refusal }),
      };
    }
    const leaseMs = this.def.lease.durationSeconds * 1000;
    // Nothing is scheduled while the claim is in flight: on a loaded host, work run in that wait (the
    // keeper and context built in an immediate) delayed the claim's response by more than it cost.
    const first = await this.claimUnlessHolderMayBeDead(leaseMs, remaining);
    const { nowMs, untilMs } = first;
    let decision = first.decision;
    // Only a claim refused by a holder of another slot has an overlap policy to apply (no await else).
    if (decision.kind === 'held' && !decision.sameSlot) {
      const arrival = await arriveUnderHolder(this.arrivalPort(), decision, nowMs, untilMs);
      if (arrival.kind === 'recorded') return { kind: 'skipped', summary: arrival.summary };
      decision = arrival.decision;
    }
    if (decision.kind !== 'acquired') return { kind: 'skipped', summary: await this.skip(decision) };
    this.fence = decision.fence;
    this.ctxFence = decision.fence;
    this.doneSlots = claimDoneSlots(decision);
    this.failedSlots = decision.failedSlots;
    this.restoredAtMs = decision.restoredAtMs;
    // Events are built only when something listens (`emit` would drop this one unread).
    if (this.deps.observe)
      this.emit({
        type: 'claim-won',
        leaseUntilMs: untilMs,
        ownWrite: decision.ownWrite,
        ...(decision.previous && { previousRunId: decision.previous.runId }),
      });
    // The common claim finds no one to mark and no done check to make: no await on that path (each is
    // a microtask hop between the claim's response and the body).
    const { toMark, alive } = this.holdersToMark(decision, nowMs);
    const recordedOwn = toMark.length > 0 ? await this.markDisplaced(toMark, decision, nowMs) : [];
    this.marked = alive === 0;
    if (recordedOwn.length > 0 && this.predecessor) {
      const skipped = await this.recoverUnreleased(recordedOwn, this.predecessor);
      if (skipped) return { kind: 'skipped', summary: skipped };
    }
    if (this.needsLateCheck()) {
      const late = await this.lateCopyDone();
      if (late) return { kind: 'skipped', summary: late };
    }
    const { keeper, ctx } = this.prepare(leaseMs);
    this.keeper = keeper;
    this.startKeeper(keeper, decision.fence, untilMs);
    if (this.deps.pausePoint) await this.pause('after-claim');
    return { kind: 'run', ctx };
  }

  /**
   * Build the lease keeper (not started) and the job context, once, for a won claim: objects only. No
   * timer is armed, no listener added and nothing emitted or written until {@link startKeeper} runs.
   */
  private prepare(leaseMs: number): { readonly keeper: LeaseKeeper; readonly ctx: JobContext } {
    if (this.prepared) return this.prepared;
    // The claim's fence and lease end are given to `start` (these are never used).
    const ref: { job: string; shard?: number; runId: string; fence: number } = {
      job: this.jobKey,
      runId: this.runId,
      fence: 0,
    };
    if (this.event.shard !== undefined) ref.shard = this.event.shard;
    const keeper = new LeaseKeeper({
      leases: this.deps.leases,
      clock: this.deps.clock,
      ref,
      leaseMs,
      renewFraction: this.def.lease.renewFraction,
      leaseUntilMs: 0,
      remainingTimeMs: this.remainingTimeMs.bind(this),
      onRenew: this.renewed.bind(this),
    });
    this.prepared = { keeper, ctx: this.context(keeper) };
    return this.prepared;
  }

  /** The keeper's report of a renewal attempt, as a `renew` event. */
  private renewed(r: { ok: boolean; leaseUntilMs: number; error?: unknown }): void {
    this.emit({
      type: 'renew',
      ok: r.ok,
      leaseUntilMs: r.leaseUntilMs,
      ...(r.error !== undefined && { error: String((r.error as Error)?.message ?? r.error) }),
    });
  }

  /** What the overlap policies' arrival path (lib/runtime/overlap-arrival.ts) uses of this run. */
  private arrivalPort() {
    return {
      overlap: this.overlap,
      slotId: this.slot.id,
      catchUp: this.event.trigger === Trigger.CatchUp,
      deps: this.deps,
      claimRequest: (nowMs: number, untilMs: number) => this.claimRequest(nowMs, untilMs),
      claim: (nowMs: number, untilMs: number) => this.claim(nowMs, untilMs),
      record: (outcome: Outcome, reason: Reason, holderSeen: HolderSeen | undefined) =>
        this.record(outcome, reason, holderSeen ? { holderSeen } : {}),
      details: this.details,
      emit: (e: RuntimeEventBody) => this.emit(e),
      ...(this.predecessor?.id !== undefined && { previousSlotId: this.predecessor.id }),
    };
  }

  /** The claim request of this run (docs/design.md step 1). */
  private claimRequest(nowMs: number, untilMs: number): ClaimRequest {
    // Optional members are assigned when present, not spread in: every claim builds one (spreads of
    // conditional literals cost a temporary object each on a cold path).
    const req: Mutable<ClaimRequest> = {
      job: this.jobKey,
      runId: this.runId,
      slotId: this.slot.id,
      nowMs,
      leaseUntilMs: untilMs,
      lambdaRequestId: this.lambda.awsRequestId,
      trigger: this.event.trigger,
      // A manual run is an operator's explicit re-run: it runs even if the slot succeeded (insert-once
      // keys make it produce no second result); every other trigger honours the done set.
      force: this.event.trigger === Trigger.Manual,
      def: this.defId,
      shards: this.def.shards,
    };
    if (this.event.shard !== undefined) req.shard = this.event.shard;
    if (this.event.requestedBy !== undefined) req.requestedBy = this.event.requestedBy;
    const overlap = this.claimOverlap;
    if (overlap) req.overlap = overlap;
    return req;
  }

  /** Claim the lease (docs/design.md step 1). A StoreError is recorded (best effort) and rethrown. */
  private async claim(nowMs: number, untilMs: number): Promise<ClaimDecision> {
    try {
      return await this.deps.leases.claim(this.claimRequest(nowMs, untilMs));
    } catch (err) {
      return this.claimThrew(err);
    }
  }

  /**
   * A claim request threw `err`. Every decision lands in a run record: a claim DynamoDB refused
   * (throttled, unreachable) too, best effort, after releasing what the claim may have applied; the
   * error still propagates so Lambda retries the invocation.
   * @throws err, always
   */
  private async claimThrew(err: unknown): Promise<never> {
    if (err instanceof StoreError) await this.claimFailed(err);
    throw err;
  }

  /**
   * Claim; when the same slot is held by a holder that stopped renewing (it may be dead: a crashed
   * environment whose Lambda retry this may be), wait for its lease to end and claim again, or fail
   * retryably (`LeaseHeldError`, after the `skipped / lease-held` record) when that outlives this
   * invocation. A skip is never the end of the line while the holder may be dead.
   */
  private async claimUnlessHolderMayBeDead(
    leaseMs: number,
    remaining: number,
  ): Promise<{ decision: ClaimDecision; nowMs: number; untilMs: number }> {
    let nowMs = this.deps.clock.now();
    let untilMs = leaseUntil(nowMs, leaseMs, remaining);
    for (let round = 1; ; round++) {
      let decision: ClaimDecision;
      try {
        decision = await this.deps.leases.claim(this.claimRequest(nowMs, untilMs));
      } catch (err) {
        // As `claim`, without the promise of a call of its own around the request: one microtask hop
        // less on every run's path from the response to the body.
        return this.claimThrew(err);
      }
      if (decision.kind !== 'held' || !decision.sameSlot) return { decision, nowMs, untilMs };
      const action = sameSlotHeldAction({
        nowMs,
        leaseUntilMs: decision.leaseUntilMs,
        renewedAtMs: decision.renewedAtMs,
        leaseMs,
        renewFraction: this.def.lease.renewFraction,
        remainingMs: this.lambda.getRemainingTimeInMillis(),
        minRemainingMs: MIN_REMAINING_TO_CLAIM_MS + 1_000,
        slackMs: 2 * CLOCK_SKEW_BUDGET_MS + 1_000,
      });
      if (action.kind === 'skip') return { decision, nowMs, untilMs };
      if (action.kind === 'retry-later' || round >= MAX_CLAIM_ROUNDS) {
        const holderSeen = {
          runId: decision.holderRunId,
          slot: decision.holderSlot,
          leaseUntilMs: decision.leaseUntilMs,
          fence: decision.fence,
        };
        this.emit({ type: 'claim-lost', reason: Reason.LeaseHeld, holderRunId: decision.holderRunId });
        this.unclaimedFailure = await this.record(Outcome.Skipped, Reason.LeaseHeld, { holderSeen });
        throw new LeaseHeldError(this.slot.id, decision.holderRunId, decision.leaseUntilMs);
      }
      this.emit({
        type: 'claim-lost',
        reason: Reason.LeaseHeld,
        holderRunId: decision.holderRunId,
        leaseUntilMs: decision.leaseUntilMs,
        waitMs: action.waitMs,
      });
      await this.sleep(action.waitMs);
      nowMs = this.deps.clock.now();
      untilMs = leaseUntil(nowMs, leaseMs, this.lambda.getRemainingTimeInMillis());
    }
  }

  private sleep(ms: number): Promise<void> {
    const { clock } = this.deps;
    return new Promise((r) => (clock.setTimer ? clock.setTimer(r, ms) : setTimeout(r, ms)));
  }

  /**
   * A claim request failed (a StoreError) after it may have been applied: release best-effort if the
   * item names us (learning the fence we held), and record `failed / store-error` with that fence.
   */
  private async claimFailed(err: StoreError): Promise<void> {
    let fence: number | undefined;
    try {
      const held = await this.deps.leases.releaseIfOwner({
        job: this.jobKey,
        ...(this.event.shard !== undefined && { shard: this.event.shard }),
        runId: this.runId,
        nowMs: this.deps.clock.now(),
      });
      fence = held?.fence;
    } catch {
      // the lease expires by itself; the next claimer marks this run (it is on the open list)
    }
    if (fence !== undefined) this.fence = fence;
    this.unclaimedFailure = await this.record(Outcome.Failed, Reason.StoreError, { error: err }).catch(
      () => undefined,
    );
    this.fence = undefined;
  }

  /**
   * A late copy of a slot older than everything the done set remembers: one read decides whether it
   * already succeeded (the normal path never reads; manual re-runs run on purpose). Returns the skip's
   * summary when it did (the lease released, the slot left as it was).
   */
  /** Whether the done set the claim returned may have dropped this slot (see {@link lateCopyDone}). */
  private needsLateCheck(): boolean {
    return this.event.trigger !== Trigger.Manual && needsDoneCheck(this.doneSlots, this.slot.id);
  }

  private async lateCopyDone(): Promise<RunSummary | undefined> {
    if (!this.needsLateCheck()) return undefined;
    const doneBy = await this.deps.runs.findSucceeded(
      this.jobKey,
      this.slot.id,
      this.defId,
      this.event.shard,
    );
    if (doneBy === undefined) return undefined;
    this.details.succeededBy = doneBy;
    this.emit({ type: 'claim-lost', reason: Reason.AlreadySucceeded });
    // Record first: if the record cannot be written, `fail` frees the lease and leaves this run on the
    // open list for the next claimer to record abandoned.
    const summary = await this.record(Outcome.Skipped, Reason.AlreadySucceeded);
    await this.release({ succeeded: false }).catch(() => undefined);
    return summary;
  }

  /** Record the skip a refused claim decided: already succeeded, paused, or held (same slot / overlap). */
  private async skip(decision: Exclude<ClaimDecision, { kind: 'acquired' }>): Promise<RunSummary> {
    if (decision.kind === 'already-succeeded') {
      this.emit({ type: 'claim-lost', reason: Reason.AlreadySucceeded });
      return this.record(Outcome.Skipped, Reason.AlreadySucceeded);
    }
    if (decision.kind === 'paused') {
      this.details.pause = decision.pause;
      this.emit({ type: 'claim-lost', reason: Reason.Paused });
      return this.record(Outcome.Skipped, Reason.Paused);
    }
    const holderSeen = {
      runId: decision.holderRunId,
      slot: decision.holderSlot,
      leaseUntilMs: decision.leaseUntilMs,
      fence: decision.fence,
    };
    const reason = decision.sameSlot ? Reason.LeaseHeld : Reason.Overlap;
    this.emit({
      type: 'claim-lost',
      reason,
      holderRunId: decision.holderRunId,
      leaseUntilMs: decision.leaseUntilMs,
    });
    return this.record(Outcome.Skipped, reason, { holderSeen });
  }

  /**
   * The runs {@link markDisplaced} marks: every earlier claim that never released (however deep the
   * chain of lost claim responses) and whose lease has ended, and the holder we displaced; and how many
   * open claims are still alive. An open claim whose lease has not ended is alive: a holder a replacing
   * claim displaced (overlap `replace`) records itself `stale / replaced`; it stays on the list (the
   * release keeps the list) for a later claimer or the sweeper to mark if it dies.
   */
  private holdersToMark(
    decision: Extract<ClaimDecision, { kind: 'acquired' }>,
    nowMs: number,
  ): { toMark: ReturnType<typeof holdersToMark>; alive: number } {
    if (decision.open.length === 0 && !decision.previous?.abandoned && !decision.previous?.displaced)
      return NONE_TO_MARK;
    const alive = decision.open.filter((h) => h.leaseUntilMs >= nowMs).length;
    const ended = decision.open.filter((h) => h.leaseUntilMs < nowMs);
    return { toMark: holdersToMark([...ended, ...displacedOf(decision)], this.runId), alive };
  }

  /**
   * Mark `toMark` abandoned. Marking is conditional: a holder that wrote its own record keeps it.
   * @returns the slots of the holders that had written their own record (their mark was refused).
   */
  private async markDisplaced(
    toMark: ReturnType<typeof holdersToMark>,
    decision: Extract<ClaimDecision, { kind: 'acquired' }>,
    nowMs: number,
  ): Promise<string[]> {
    // An open entry names only run, slot and lease end: the claim's returned item may say more of it.
    const known = new Map(displacedOf(decision).map((p) => [p.runId, p]));
    const recordedOwn: string[] = [];
    for (const p of toMark) {
      const marked = await this.deps.runs.markAbandoned(
        this.jobKey,
        holderSeenOf(known.get(p.runId) ?? p),
        this.runId,
        nowMs,
        this.def.runRetentionDays,
      );
      // A holder that recorded its own outcome (a `succeeded` whose release a timeout cut off) keeps
      // it: no abandoned mark, no RunAbandoned.
      if (marked) this.emit({ type: 'abandoned-marked', abandonedRunId: p.runId, abandonedSlot: p.slot });
      else recordedOwn.push(p.slot);
    }
    return recordedOwn;
  }

  /**
   * Overlap `after-previous`: count the successes of taken-over holders whose release never landed
   * (lib/runtime/after-previous-recovery.ts). One read per such slot not in the done set (only on this
   * path). The release adds them to the done set whatever this run does. @returns the skip's summary
   * when this run must not run now: its own slot already succeeded (`already-succeeded`), or with those
   * successes counted its predecessor has not (`waiting-for-previous`).
   */
  private async recoverUnreleased(
    slots: readonly string[],
    predecessor: Predecessor,
  ): Promise<RunSummary | undefined> {
    const recovered: string[] = [];
    for (const slotId of new Set(slots)) {
      if (this.doneSlots.has(slotId)) continue;
      const by = await this.deps.runs.findSucceeded(this.jobKey, slotId, this.defId, this.event.shard);
      if (by !== undefined) recovered.push(slotId);
    }
    if (recovered.length === 0) return undefined;
    recovered.sort();
    this.doneSlots = withRecovered(this.doneSlots, recovered, this.def.rememberSlots);
    this.recoveredSlot = recovered.at(-1);
    this.details.recoveredSucceeded = recovered;
    let reason: Reason | undefined;
    if (this.doneSlots.has(this.slot.id)) reason = Reason.AlreadySucceeded;
    else if (!mayRunAfterRecovery(predecessor, this.doneSlots)) {
      reason = Reason.WaitingForPrevious;
      if (predecessor.id !== undefined) this.details.waitingFor = predecessor.id;
    }
    if (reason === undefined) return undefined;
    this.emit({ type: 'claim-lost', reason });
    // Record first, as every finish: if the record cannot be written, `fail` frees the lease.
    const summary = await this.record(Outcome.Skipped, reason);
    await this.release({ succeeded: false }).catch(() => undefined);
    return summary;
  }

  /** Start renewing the lease every `lease/3` (docs/design.md step 2) under the won claim's fence. */
  private startKeeper(keeper: LeaseKeeper, fence: number, untilMs: number): void {
    keeper.start({ fence, leaseUntilMs: untilMs });
    // The platform's stop request (an ECS task's SIGTERM) aborts the body like a lost lease does.
    const stop = this.lambda.stopSignal;
    if (stop) {
      const onStop = () => keeper.abort(stop.reason as Error);
      if (stop.aborted) onStop();
      else stop.addEventListener('abort', onStop, { once: true });
    }
  }

  /**
   * Record `succeeded` and release, remembering the slot as done. A run whose lease lapsed or was lost
   * before it could record throws the abort reason instead (recorded `stale` by {@link fail}). Once the
   * success is recorded, a failed release (throttled, or the lease already taken after a lapse) does not
   * change the outcome: the lease expires by itself and the summary stays `succeeded`, like the record.
   * @throws StoreError when the record cannot be written; LeaseLostError / DeadlineError before it
   */
  async succeed(): Promise<RunSummary> {
    await this.pause('before-finish');
    this.keeper?.assertHeld();
    await this.endAuthority();
    if (this.reviewKeys().length > 0) return this.stopForReview();
    // `succeeded` only where no successor left an abandoned mark (else LeaseLostError → fail() records
    // `stale / lease-lost`); then the release, conditional on still holding the lease. A refused
    // release means a successor displaced this run before its mark could land: the record is corrected
    // to `stale / lease-lost` (the run-record correction write), unless DynamoDB cannot be reached to
    // correct it — then the stored `succeeded` stands and so does the summary (see correctDisplaced).
    let summary: RunSummary;
    try {
      summary = await this.record(Outcome.Succeeded);
    } catch (err) {
      // The record could not be written: never leave the lease held (a retry must be able to claim);
      // the holder is left `unrecorded` (its authority over) for the next claimer to record abandoned.
      await this.release({ succeeded: false, recorded: false }).catch(() => undefined);
      throw err;
    }
    try {
      await this.release({ succeeded: true });
    } catch (err) {
      if (err instanceof LeaseLostError) return this.correctDisplaced(err, summary);
      // Throttled (or otherwise failed) release after the record: the lease expires by itself, and a
      // later delivery of this slot finds its results. The outcome stays what the record says.
      this.emit({ type: 'renew', ok: false, leaseUntilMs: 0, error: (err as Error)?.message ?? String(err) });
    }
    return this.withNext(summary);
  }

  /**
   * Correct the `succeeded` record of a run whose release found a successor to `stale / lease-lost`.
   * When the correction itself cannot be written (a StoreError: partitioned, throttled, timed out), the
   * record that stands says `succeeded`, and the summary says what the record says: the handler never
   * reports one outcome while the table holds another, and it does not rethrow (the successor holds the
   * lease; a Lambda retry would only find it). The refused correction is reported as a failed release.
   * @param displaced the release's LeaseLostError; @param recorded the summary of the stored record
   * @throws what the correction throws other than StoreError
   */
  private async correctDisplaced(displaced: LeaseLostError, recorded: RunSummary): Promise<RunSummary> {
    try {
      const reason =
        (await replacedReason(
          this.overlap,
          this.deps,
          this.leaseRef(),
          this.runId,
          this.ctxFence,
          displaced,
        )) ?? Reason.LeaseLost;
      return await this.record(Outcome.Stale, reason, { error: displaced });
    } catch (err) {
      if (!(err instanceof StoreError)) throw err;
      this.emit({ type: 'renew', ok: false, leaseUntilMs: 0, error: `${displaced.message}; ${err.message}` });
      return recorded;
    }
  }

  /** Keys of the effects this run met or marked in `needs-review` (`details.effectsNeedingReview`). */
  private reviewKeys(): string[] {
    const list = (this.details.effectsNeedingReview ?? []) as { key: string }[];
    return list.map((n) => n.key);
  }

  /**
   * The one rule for a body that finished while an effect it met is in `needs-review` (docs/design.md
   * "An effect in needs-review"): the run is a problem — recorded `failed / effect-needs-review`, the
   * keys under `details.effectsNeedingReview` — and the slot is not done (released without adding it to
   * the done set). No rethrow: a Lambda retry would only reach the same effect and stop again. A later
   * re-run (the sweeper's catch-up, a manual run) gets the stored `needs-review` outcome with zero
   * provider calls and stops the same way, until an operator resolves the effect; then the re-run
   * meets the resolution and the slot can succeed. @throws StoreError when the record cannot be written
   */
  private async stopForReview(): Promise<RunSummary> {
    let recorded = false;
    try {
      const summary = await this.record(Outcome.Failed, Reason.EffectNeedsReview);
      recorded = true;
      return summary;
    } finally {
      await this.release({ succeeded: false, recorded }).catch(() => undefined);
    }
  }

  /** Milliseconds until the Lambda deadline. */
  remainingTimeMs(): number {
    return this.lambda.getRemainingTimeInMillis();
  }

  /**
   * Throw unless this run may still start work: not aborted, the lease not lapsed by this clock (minus
   * the skew budget), the deadline not reached (the lease keeper's check; see LeaseKeeper.assertHeld).
   */
  assertHeld(): void {
    this.prepared?.keeper.assertHeld();
  }

  /**
   * Track a protected operation (fenced write, insert-once, effect) the body started: the run's record
   * waits for it (see {@link endAuthority}). @returns `op` itself.
   */
  track<T>(op: Promise<T>): Promise<T> {
    this.inflight ??= new Set();
    const inflight = this.inflight;
    inflight.add(op);
    const done = () => inflight.delete(op);
    op.then(done, done);
    return op;
  }

  /**
   * End the run's authority before its record: abort the signal with RunFinishedError (a body branch
   * still running — `Promise.all` siblings, un-awaited promises, timers — can start no write or effect
   * from now on), then wait for the protected operations already under way to settle, bounded by the
   * Lambda time left minus {@link FINISH_MARGIN_MS}. An effect past its `sending` write either sent its
   * request (and we wait for the answer) or sees the abort and never sends, so the handler does not
   * return while an effect sits between `sending` and its request.
   */
  private async endAuthority(): Promise<void> {
    this.keeper?.finish();
    if (this.inflight === undefined || this.inflight.size === 0) return;
    const boundMs = Math.max(0, this.lambda.getRemainingTimeInMillis() - FINISH_MARGIN_MS);
    let cancel: (() => void) | undefined;
    const bound = new Promise<void>((resolve) => {
      if (this.deps.clock.setTimer) cancel = this.deps.clock.setTimer(resolve, boundMs);
      else {
        const t = setTimeout(resolve, boundMs);
        cancel = () => clearTimeout(t);
      }
    });
    await Promise.race([Promise.allSettled([...this.inflight]), bound]);
    cancel?.();
  }

  /**
   * Record a body or protocol failure. Stale runs (lease lost, stale fence) are final: no release,
   * no rethrow. Other failures release without marking the slot done; the error's category decides
   * whether the caller rethrows so that Lambda/Scheduler retry ({@link shouldRetry}: transient errors
   * and a body's own errors do; input, configuration and conflict errors, which a retry would only meet
   * again, do not). @returns the summary and whether the caller should rethrow.
   */
  async fail(err: unknown): Promise<{ summary: RunSummary; rethrow: boolean }> {
    if (!this.claimed || this.finished) {
      this.keeper?.finish();
      // A failure after the run's record was stored changes nothing in the table: the handler reports
      // the stored outcome, and a retry would only meet that record.
      if (this.stored) return { summary: this.stored, rethrow: false };
      return { summary: this.summary(Outcome.Failed, Reason.Error, err), rethrow: true };
    }
    await this.endAuthority();
    if (err instanceof StaleFenceError || err instanceof LeaseLostError) {
      if (err instanceof StaleFenceError) {
        this.emit({
          type: 'stale-write-rejected',
          target: err.message,
          ...(err.storedFence !== undefined && { storedFence: err.storedFence }),
        });
      }
      const reason =
        (await replacedReason(this.overlap, this.deps, this.leaseRef(), this.runId, this.ctxFence, err)) ??
        (err instanceof StaleFenceError ? Reason.StaleFence : Reason.LeaseLost);
      const summary = await this.record(Outcome.Stale, reason, { error: err });
      return { summary, rethrow: false };
    }
    const reason =
      err instanceof DeadlineError
        ? Reason.Deadline
        : err instanceof StoreError
          ? Reason.StoreError
          : err instanceof TerminatedError
            ? Reason.Terminated
            : Reason.Error;
    this.failureStreak = this.nextFailureStreak();
    let recorded = false;
    let summary: RunSummary;
    try {
      summary = await this.record(Outcome.Failed, reason, { error: err });
      recorded = true;
    } finally {
      // Released whether or not the record could be written: a retry claims at once (an unrecorded
      // holder is left `unrecorded`, its authority over, for the next claimer to record abandoned).
      await this.release({ succeeded: false, recorded }).catch(() => undefined);
    }
    return { summary: this.withNext(summary), rethrow: shouldRetry(err) };
  }

  /** `summary` naming the buffered slot the release found waiting first, if any. */
  private withNext(summary: RunSummary): RunSummary {
    if (this.nextBuffered === undefined) return summary;
    const withNext = { ...summary, nextBuffered: this.nextBuffered };
    this.stored = withNext;
    return withNext;
  }

  /**
   * Record that this shard event was cut for `cutFor` shards and re-fanned out for `current`
   * (`skipped / resharded`; nothing claimed). @throws StoreError
   */
  async recordResharded(cutFor: number, current: number): Promise<RunSummary> {
    this.details.reshard = { cutFor, current, dispatched: current };
    this.emit({ type: 'claim-lost', reason: Reason.Resharded });
    return this.record(Outcome.Skipped, Reason.Resharded);
  }

  /** Report a decision to the observer (never throws). */
  emit(event: RuntimeEventBody): void {
    if (!this.deps.observe) return; // nothing listens: build no event
    notify(this.deps.observe, event, {
      job: this.def.name,
      slot: this.slot.id,
      runId: this.runId,
      trigger: this.event.trigger,
      ...(this.fence !== undefined && { fence: this.fence }),
      ...(this.event.shard !== undefined && { shard: this.event.shard }),
      atMs: this.deps.clock.now(),
    });
  }

  /** Wait at the named pause point of the deps' `pausePoint` (drills), once the lease is ours. */
  async pause(
    name: 'after-claim' | 'before-write' | 'before-finish',
    key?: Record<string, unknown>,
  ): Promise<void> {
    if (this.deps.pausePoint && this.fence !== undefined) {
      await this.deps.pausePoint(name, {
        job: this.def.name,
        runId: this.runId,
        fence: this.fence,
        ...(key && { key }),
      });
    }
  }

  /**
   * `pauseOnFailure` jobs: the streak after this failed occurrence and, when it reaches the limit, the
   * pause the release writes (noted on this run's record as `details.pausedJob`).
   */
  private nextFailureStreak(): { slots: FailedOccurrence[]; pause?: PauseFields } | undefined {
    const n = this.def.pauseOnFailure;
    if (n === undefined) return undefined;
    const slots = nextFailedSlots(this.failedSlots, { slot: this.slot.id, runId: this.runId }, n);
    const pause = failurePause(slots, n, this.deps.clock.now());
    if (pause) this.details.pausedJob = { note: pause.pauseNote, runIds: pause.pausedRuns };
    return { slots, ...(pause && { pause }) };
  }

  /** What the release does to a `pauseOnFailure` streak: store it (failed), clear it (succeeded). */
  private streakUpdate(done: boolean): Pick<ReleaseRequest, 'failedSlots' | 'pause'> {
    if (done) return (this.failedSlots?.length ?? 0) > 0 ? { failedSlots: null } : {};
    const s = this.failureStreak;
    return s ? { failedSlots: s.slots, ...(s.pause && { pause: s.pause }) } : {};
  }

  /**
   * Release the lease. `succeeded`: add the slot to the done set (the run succeeded). `recorded`: the
   * run's record was written (default true); false leaves the holder `unrecorded` for the next claimer
   * to record abandoned.
   */
  private async release({ succeeded: done, recorded = true }: ReleaseOptions): Promise<void> {
    if (this.fence === undefined) return;
    const released = await this.deps.leases.release({
      job: this.jobKey,
      ...(this.event.shard !== undefined && { shard: this.event.shard }),
      runId: this.runId,
      fence: this.fence,
      nowMs: this.deps.clock.now(),
      def: this.defId,
      clearOpen: this.marked && recorded,
      recorded,
      ...(done && {
        doneSlots: nextDoneSlots(this.doneSlots, this.slot.id, this.def.rememberSlots),
        succeededSlot: this.slot.id,
      }),
      // A recovered success (after-previous) joins the done set even when this run does not succeed.
      ...(!done &&
        this.recoveredSlot !== undefined && { doneSlots: this.doneSlots, succeededSlot: this.recoveredSlot }),
      ...this.streakUpdate(done),
    });
    this.nextBuffered = this.overlap.maxBuffered > 0 ? released.buffered[0] : undefined;
  }

  /** This run's lease (job key and shard). */
  private leaseRef() {
    return { job: this.jobKey, ...(this.event.shard !== undefined && { shard: this.event.shard }) };
  }

  private summary(outcome: Outcome, reason?: Reason, error?: unknown, holderSeen?: HolderSeen): RunSummary {
    return {
      job: this.def.name,
      slot: this.slot.id,
      scheduledTime: new Date(this.slot.scheduledTimeMs).toISOString(),
      trigger: this.event.trigger,
      runId: this.runId,
      outcome,
      ...(reason && { reason }),
      ...(this.fence !== undefined && { fence: this.fence }),
      ...(holderSeen && { holderSeen }),
      durationMs: this.deps.clock.now() - this.startedAtMs,
      ...(error !== undefined && { error: errorSummary(error) }),
    };
  }

  private async record(
    outcome: Outcome,
    reason?: Reason,
    extra: { holderSeen?: HolderSeen; error?: unknown } = {},
  ): Promise<RunSummary> {
    const finishedAtMs = this.deps.clock.now();
    const e = this.event;
    const rec: RunRecord = {
      job: this.jobKey,
      ...(e.shard !== undefined && { shard: e.shard }),
      slot: this.slot.id,
      scheduledTime: new Date(this.slot.scheduledTimeMs).toISOString(),
      businessDate: this.slot.businessDate,
      runId: this.runId,
      trigger: e.trigger,
      ...(e.requestedBy !== undefined && { requestedBy: e.requestedBy }),
      ...(e.reason !== undefined && { requestReason: e.reason }),
      lambdaRequestId: this.lambda.awsRequestId,
      ...(e.executionId !== undefined && { executionId: e.executionId }),
      ...(e.attemptNumber !== undefined && { attemptNumber: e.attemptNumber }),
      ...(this.fence !== undefined && { fence: this.fence }),
      outcome,
      ...(reason && { reason }),
      ...(extra.holderSeen && { holderSeen: extra.holderSeen }),
      startedAtMs: this.startedAtMs,
      finishedAtMs,
      durationMs: finishedAtMs - this.startedAtMs,
      ...(extra.error !== undefined && { error: errorSummary(extra.error) }),
      ...(Object.keys(this.details).length > 0 && { details: boundDetails(this.details) }),
      def: this.defId,
      ...(e.shard !== undefined && { shards: e.shards ?? this.def.shards }),
    };
    if (this.deps.observe) this.emit({ type: 'recording', outcome, ...(reason && { reason }) });
    await this.deps.runs.put(rec, this.def.runRetentionDays);
    this.finished = true;
    const summary = this.summary(outcome, reason, extra.error, extra.holderSeen);
    this.stored = summary;
    this.emit({ type: 'finish', summary });
    return summary;
  }

  /** The job context on `keeper`, with the won claim's fence and restore mark. */
  private context(keeper: LeaseKeeper): JobContext {
    // Built once the claim is decided (after `ctxFence` and `restoredAtMs` are set, never changed
    // again): plain values, no accessors (an accessor in an object literal is ~1 µs per object in V8),
    // optional members assigned when present (no spread temporaries), no function made for it.
    const binding: Mutable<JobContextBinding> = {
      deps: this.deps,
      job: this.jobKey,
      slot: this.slot,
      trigger: this.event.trigger,
      runId: this.runId,
      fence: this.ctxFence,
      abort: keeper,
      run: this,
      details: this.details,
      effects: effectsOf(this.def),
    };
    if (this.event.shard !== undefined) binding.shard = this.event.shard;
    // A `replace` displaces a live holder: its writes to its own slot's rows must check the lease.
    if (this.overlap.policy === OverlapPolicy.Replace) binding.checkLease = true;
    if (this.restoredAtMs !== undefined) binding.restoredAtMs = this.restoredAtMs;
    return createJobContext(binding);
  }
}

/** Definition ids, computed once per definition (they depend on nothing else). */
const definitionIds = new WeakMap<JobDefinition, string>();

function definitionIdOf(def: JobDefinition): string {
  const known = definitionIds.get(def);
  if (known !== undefined) return known;
  const id = definitionId(def);
  definitionIds.set(def, id);
  return id;
}

/** The previous holders a claim's returned item shows abandoned (the one displaced, and its own). */
function displacedOf(decision: Extract<ClaimDecision, { kind: 'acquired' }>) {
  return [decision.previous?.displaced, decision.previous].flatMap((p) => (p?.abandoned ? [p] : []));
}

/**
 * A displaced holder as its abandon mark names it: with its own claim time, trigger and requester when
 * the lease item kept them (the claim's ALL_OLD item does; an `open` entry has only run, slot, lease end).
 */
function holderSeenOf(p: OpenHolder | PreviousHolder): HolderSeen {
  const known = 'abandoned' in p ? p : undefined;
  return {
    runId: p.runId,
    slot: p.slot,
    leaseUntilMs: p.leaseUntilMs,
    fence: p.fence,
    ...(known?.acquiredAtMs !== undefined && { acquiredAtMs: known.acquiredAtMs }),
    ...(known?.trigger !== undefined && { trigger: known.trigger }),
    ...(known?.requestedBy !== undefined && { requestedBy: known.requestedBy }),
  };
}
