/**
 * The operator API's input checks and its one time format: every refusal names the field (the CLI
 * flag or environment variable the value came from) and the value, and is raised before anything is
 * read, written or invoked.
 */
import { userInfo } from 'node:os';
import { MIN_SLOT_YEAR } from '../lib/core/schedule/validate-slot.js';
import { InvalidArgumentError } from '../lib/errors.js';

/** The earliest instant a date option takes, epoch ms: the handler refuses slots before it. */
export const EARLIEST_MS = Date.UTC(MIN_SLOT_YEAR, 0, 1);

/** Why no date option takes a time before {@link EARLIEST_MS}. */
export const EARLIEST_REASON = `before 1970-01-01T00:00:00Z: no slot is earlier (the handler refuses a scheduledTime before ${MIN_SLOT_YEAR}, Scheduler's cron years start there)`;

/**
 * A bad-input error naming the field and the value (the CLI exits 2 on it).
 * @param argument the field as the operator gave it (`--slot`, `CRONFENCE_TABLE`, `<job>`).
 */
export function usage(argument: string, value: unknown, problem: string): InvalidArgumentError {
  return new InvalidArgumentError(argument, value, problem);
}

/** Epoch ms as an ISO-8601 UTC instant without milliseconds (`2026-03-28T01:30:00Z`), or `-`. */
export function iso(ms: unknown): string {
  return typeof ms === 'number' && Number.isFinite(ms) && ms > 0
    ? `${new Date(ms).toISOString().slice(0, 19)}Z`
    : '-';
}

/**
 * A free-text value (who, why) trimmed, 1 to `max` characters: the limits the invocation event
 * enforces (lib/core/event.ts), checked before anything is invoked.
 * @param source the field or environment variable the value came from (named in the error).
 * @throws InvalidArgumentError naming `source` and the value when it is empty or too long.
 */
export function textValue(source: string, value: string, max: number): string {
  const v = value.trim();
  if (v.length === 0 || v.length > max) throw usage(source, value, `must be 1 to ${max} characters`);
  return v;
}

/** The environment variable naming the operator when a command's who-field is not given. */
export const OPERATOR_ENV = 'CRONFENCE_OPERATOR';

/** The OS user and where it came from (`userInfo()` throws for a uid without a passwd entry). */
function osUser(env: NodeJS.ProcessEnv): { source: string; value: string } {
  try {
    return { source: 'the OS user name', value: userInfo().username };
  } catch {
    return { source: 'USER', value: env.USER ?? 'unknown' };
  }
}

/**
 * Who runs an operation (recorded on what it writes): `given`, else {@link OPERATOR_ENV}, else the
 * OS user; checked with {@link textValue} naming the source the value came from, so a bad
 * `CRONFENCE_OPERATOR` is named as such and never as the field the operator did not give.
 * @param flag the who-field's name (`--by`, `--requested-by`); @param given its value, if given.
 * @param max the longest name the record takes, characters.
 * @throws InvalidArgumentError naming the field, `CRONFENCE_OPERATOR` or the OS user and the value.
 */
export function operatorValue(
  flag: string,
  given: string | undefined,
  max: number,
  env: NodeJS.ProcessEnv = process.env,
): string {
  if (given !== undefined) return textValue(flag, given, max);
  const fromEnv = env[OPERATOR_ENV];
  if (fromEnv !== undefined) return textValue(OPERATOR_ENV, fromEnv, max);
  const user = osUser(env);
  return textValue(user.source, user.value, max);
}
