/**
 * Check-ins for an external cron monitor (opt-in job option `checkIn`): the run that claims an occurrence
 * reports `in_progress`, then `ok` or `error`, to a URL built from a template. Pure: the option's schema
 * and the URL of each check-in; the sending is lib/runtime/check-in-sender.ts.
 *
 * One template serves both common monitors' HTTP check-ins:
 * - Sentry Crons: `https://<ingest host>/api/<project>/cron/<monitor>/<public key>/?status={status}`
 *   with the default statuses (`in_progress`, `ok`, `error` are Sentry's own values).
 * - healthchecks.io: `https://hc-ping.com/<uuid>{status}?rid={runId}` with
 *   `statuses: { inProgress: '/start', ok: '', error: '/fail' }` (its start / success / fail endpoints;
 *   `rid` pairs a start with its end).
 */
import * as v from 'valibot';

/** The check-in a run sends. */
export const CheckInStatus = { InProgress: 'in_progress', Ok: 'ok', Error: 'error' } as const;
/** Union of {@link CheckInStatus} values. */
export type CheckInStatus = (typeof CheckInStatus)[keyof typeof CheckInStatus];

/** Default bound on one check-in request, ms. */
export const DEFAULT_CHECK_IN_TIMEOUT_MS = 2_000;
/** Largest `timeoutMs`: a check-in must never hold a run's end back for long, ms. */
export const MAX_CHECK_IN_TIMEOUT_MS = 10_000;

/** The job option `checkIn`. */
export interface CheckInOptions {
  /**
   * URL template, `http(s)`; `{status}` (required) becomes the status's text, `{job}`, `{slot}` and
   * `{runId}` the run's (URL-encoded).
   */
  readonly url: string;
  /**
   * The text `{status}` becomes per status.
   * @default { inProgress: 'in_progress', ok: 'ok', error: 'error' } (Sentry Crons' values)
   */
  readonly statuses: { readonly inProgress: string; readonly ok: string; readonly error: string };
  /** Bound on each check-in request, ms (100–10,000). @default 2000 */
  readonly timeoutMs: number;
}

const STATUS_TEXT = v.pipe(v.string('must be a string'), v.maxLength(64, 'must be at most 64 characters'));

const sample = (url: string) =>
  url
    .replaceAll('{status}', 'ok')
    .replaceAll('{job}', 'j')
    .replaceAll('{slot}', 's')
    .replaceAll('{runId}', 'r');

/** The `checkIn` option's schema (run by defineJob, synth and `cronfence check`). */
export const CheckInSchema = v.object({
  url: v.pipe(
    v.string('must be a URL template string'),
    v.check((u) => u.includes('{status}'), 'must contain {status} (where the check-in status goes)'),
    v.check((u) => {
      try {
        return ['http:', 'https:'].includes(new URL(sample(u)).protocol);
      } catch {
        return false;
      }
    }, 'must be an http(s) URL once {status}, {job}, {slot} and {runId} are filled in'),
  ),
  statuses: v.optional(
    v.object({
      inProgress: v.optional(STATUS_TEXT, CheckInStatus.InProgress),
      ok: v.optional(STATUS_TEXT, CheckInStatus.Ok),
      error: v.optional(STATUS_TEXT, CheckInStatus.Error),
    }),
    {},
  ),
  timeoutMs: v.optional(
    v.pipe(
      v.number('must be an integer number of ms from 100 to 10000'),
      v.integer('must be an integer number of ms from 100 to 10000'),
      v.minValue(100, 'must be an integer number of ms from 100 to 10000'),
      v.maxValue(MAX_CHECK_IN_TIMEOUT_MS, 'must be an integer number of ms from 100 to 10000'),
    ),
    DEFAULT_CHECK_IN_TIMEOUT_MS,
  ),
});

/** The URL of one check-in. */
export function checkInUrl(
  options: CheckInOptions,
  status: CheckInStatus,
  run: { readonly job: string; readonly slot: string; readonly runId: string },
): string {
  const text =
    status === CheckInStatus.InProgress
      ? options.statuses.inProgress
      : status === CheckInStatus.Ok
        ? options.statuses.ok
        : options.statuses.error;
  return options.url
    .replaceAll('{status}', text)
    .replaceAll('{job}', encodeURIComponent(run.job))
    .replaceAll('{slot}', encodeURIComponent(run.slot))
    .replaceAll('{runId}', encodeURIComponent(run.runId));
}
