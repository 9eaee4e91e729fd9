/**
 * Sends a run's check-ins to the job's external cron monitor (the `checkIn` option, lib/core/check-in.ts)
 * so that they can never delay, fail or repeat the job's work:
 * - only a run that claimed the occurrence sends (a skipped duplicate sends nothing);
 * - `in_progress` is started after the claim and NOT awaited: the body runs at once beside it;
 * - the end (`ok` for `succeeded`, `error` for any other outcome) is sent after the run's record and
 *   release, chained after `in_progress` so the monitor sees them in order;
 * - each request is bounded (`timeoutMs`, an AbortSignal timeout) and sent once, never retried; a
 *   failure or a non-2xx answer is only logged (one JSON line on stderr), never thrown;
 * - before the handler returns it waits for the check-ins at most `timeoutMs` more and never past
 *   1 s before the Lambda deadline (Lambda freezes the environment after return).
 */
import { type CheckInOptions, CheckInStatus, checkInUrl } from '../core/check-in.js';
import { Outcome } from '../core/outcomes.js';

/** Time kept free before the Lambda deadline when waiting for check-ins, ms. */
const DEADLINE_MARGIN_MS = 1_000;

/** A run's check-ins. */
export class CheckInSender {
  private chain: Promise<void> = Promise.resolve();

  /**
   * Start the run's check-ins: sends `in_progress` now (not awaited).
   * @param run the job's name, the slot id and the run id (`{job}`, `{slot}`, `{runId}` in the URL).
   * @param send the HTTP client. @default globalThis.fetch
   */
  constructor(
    private readonly options: CheckInOptions,
    private readonly run: { readonly job: string; readonly slot: string; readonly runId: string },
    private readonly send: typeof fetch = globalThis.fetch,
  ) {
    this.enqueue(CheckInStatus.InProgress);
  }

  /**
   * Send the end check-in for the run's outcome and wait for both check-ins, bounded.
   * @param remainingMs the Lambda time left, ms. Never throws.
   */
  async end(outcome: string, remainingMs: number): Promise<void> {
    this.enqueue(outcome === Outcome.Succeeded ? CheckInStatus.Ok : CheckInStatus.Error);
    const boundMs = Math.max(0, Math.min(this.options.timeoutMs, remainingMs - DEADLINE_MARGIN_MS));
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      this.chain,
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, boundMs);
      }),
    ]);
    clearTimeout(timer);
  }

  private enqueue(status: CheckInStatus): void {
    const url = checkInUrl(this.options, status, this.run);
    this.chain = this.chain.then(() => this.once(status, url));
  }

  private async once(status: CheckInStatus, url: string): Promise<void> {
    try {
      const res = await this.send(url, {
        method: 'GET',
        signal: AbortSignal.timeout(this.options.timeoutMs),
      });
      await res.body?.cancel();
      if (!res.ok) this.warn(status, url, `HTTP ${res.status}`);
    } catch (err) {
      this.warn(status, url, `${(err as Error)?.name ?? 'Error'}: ${(err as Error)?.message ?? String(err)}`);
    }
  }

  private warn(status: CheckInStatus, url: string, problem: string): void {
    // The URL's path and query may hold the monitor's key: only its origin is logged.
    console.warn(
      JSON.stringify({
        level: 'WARN',
        message: 'cronfence check-in not delivered (the run is not affected)',
        job: this.run.job,
        slot: this.run.slot,
        runId: this.run.runId,
        status,
        monitor: new URL(url).origin,
        problem,
      }),
    );
  }
}
