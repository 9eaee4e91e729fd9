/**
 * What one invocation reports: the summary a handler returns, the owner token, the Lambda context
 * fields the runtime reads.
 */
import { randomFillSync } from 'node:crypto';
import { base36 } from '../core/digits.js';
import { boundText } from '../core/item-bounds.js';
import type { Outcome, Reason, Trigger } from '../core/outcomes.js';
import type { HolderSeen } from '../core/ports.js';

/** The Lambda context fields the runtime uses. */
export interface LambdaLikeContext {
  readonly awsRequestId: string;
  getRemainingTimeInMillis(): number;
  /**
   * Aborted when the platform asks the process to stop (an ECS task's SIGTERM), with a TerminatedError as
   * its reason: the run aborts its body through `ctx.signal`, records `failed / terminated` and releases.
   * A Lambda context has none. @default none
   */
  readonly stopSignal?: AbortSignal;
}

/** What a handler returns (and `npm start` prints) for one invocation. */
export interface RunSummary {
  readonly job: string;
  readonly slot: string;
  readonly scheduledTime: string;
  readonly trigger: Trigger;
  readonly runId: string;
  readonly outcome: Outcome;
  readonly reason?: Reason;
  readonly fence?: number;
  readonly holderSeen?: HolderSeen;
  readonly durationMs: number;
  readonly error?: { name: string; message: string };
  /**
   * Overlap policy `buffer-*`: the buffered slot this run's release found waiting first (in slot
   * order), for the handler to start (lib/runtime/overlap-start.ts). @default none
   */
  readonly nextBuffered?: string;
}

/** Skip claiming when less than this much Lambda time is left, ms. */
export const MIN_REMAINING_TO_CLAIM_MS = 3_000;

/**
 * The random part of a run id: 5 bytes from the CSPRNG, as hex. Each run id uses bytes drawn for it
 * alone: the first id of a process draws them as it is made; a run that finished draws the next id's
 * in an immediate after its handler settled ({@link drawNextRunIdRandom}), so the next run's claim is
 * not held up by the CSPRNG call or the hex encoding (cold, they cost tens of µs before the claim can go
 * out). Bytes are never drawn at import or initialisation, never pooled for more than one id: an
 * environment cloned from a snapshot taken after initialisation draws its own.
 */
const runIdRandom = Buffer.alloc(5);
/** The hex of bytes drawn for the next run id and not used yet, if any. */
let nextRandomHex: string | undefined;
let drawScheduled = false;

function drawRandomHex(): string {
  randomFillSync(runIdRandom);
  return runIdRandom.toString('hex');
}

/** A new owner token: time-ordered and random, one per invocation attempt (never the Lambda request id). */
export function newRunId(nowMs: number): string {
  const random = nextRandomHex ?? drawRandomHex();
  nextRandomHex = undefined;
  return `${base36(nowMs).padStart(9, '0')}-${random}`;
}

/**
 * Draw the random bytes of this process's next run id in an immediate (after the current handler's
 * promise chain has settled), unless already drawn or scheduled. Called when a run finished; the
 * immediate is unref'd, so it never keeps a process alive. The CSPRNG call is only moved, never saved.
 */
export function drawNextRunIdRandom(): void {
  if (nextRandomHex !== undefined || drawScheduled) return;
  drawScheduled = true;
  setImmediate(() => {
    drawScheduled = false;
    nextRandomHex ??= drawRandomHex();
  }).unref();
}

/** Name and a bounded message of an error, for run records and summaries. */
export function errorSummary(err: unknown): { name: string; message: string } {
  const e = err as Error;
  return {
    name: String(e?.name ?? 'Error').slice(0, 100),
    message: boundText(String(e?.message ?? err), 500),
  };
}
