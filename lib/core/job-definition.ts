import { InvalidJobDefinitionError } from '../errors.js';

/**
 * The static part of a job: what the runtime, the emulator, the sweeper and the CDK app read.
 * Produced (validated) by `defineJob`; the same object is attached to the Lambda handler as
 * `handler.job`, so a schedule string is written once.
 */
export interface JobDefinition {
  /** Job name: 1–64 chars of `[A-Za-z0-9_-]`, starting with a letter (a Scheduler schedule name, a key part). */
  readonly name: string;
  /** EventBridge Scheduler expression: `cron(m h dom mon dow year)`, `rate(n unit)` or `at(yyyy-mm-ddThh:mm:ss)`. */
  readonly schedule: string;
  /** IANA time zone the schedule is evaluated in (Scheduler's ScheduleExpressionTimezone). @default 'UTC' */
  readonly timeZone: string;
  /** Lease settings. */
  readonly lease: {
    /** How long a claim (or renewal) holds the lease, in seconds. Must be > 0 and ≤ `timeoutSeconds`. */
    readonly durationSeconds: number;
    /** Renew when this fraction of the lease has passed. @default 1/3 */
    readonly renewFraction: number;
  };
  /** The Lambda function timeout, in seconds (max 900). @default 60 */
  readonly timeoutSeconds: number;
  /**
   * Which local date a slot's business date is: the slot's own (`slot-date`) or the day before
   * (`previous-day`, for "settle yesterday" jobs). @default 'slot-date'
   */
  readonly businessDate: 'slot-date' | 'previous-day';
  /** DST gap policy (docs/design.md "Time"). @default 'shift' for crons at most daily, else 'skip' */
  readonly dstGap?: 'skip' | 'shift';
  /** Catch-up of missed slots by the sweeper. */
  readonly catchUp?: {
    readonly mode: 'none' | 'latest' | 'all';
    /** How far back the sweeper looks, in hours. */
    readonly windowHours: number;
    /** At most this many missed slots re-triggered per sweep; the rest are skipped `catch-up-limit`. */
    readonly maxSlotsPerSweep: number;
  };
  /** Number of shards the job fans out to (docs/design.md "Scale"). @default 1 */
  readonly shards: number;
  /** Days a run record is kept before DynamoDB TTL reaps it. @default 30 */
  readonly runRetentionDays: number;
  /** How many recently succeeded slots the lease item remembers (its bounded done set). @default 32 */
  readonly rememberSlots: number;
}

/** Maximum Lambda timeout, in seconds (AWS Lambda quotas). */
export const MAX_LAMBDA_TIMEOUT_SECONDS = 900;

const JOB_NAME = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;

/**
 * Validate a job name. Rule: 1–64 chars, `[A-Za-z0-9_-]`, first a letter — a subset of Scheduler's
 * schedule-name charset that is also safe inside `JOB#<name>` keys (no `#`).
 * @throws InvalidJobDefinitionError naming `name` and the value.
 */
export function validateJobName(name: unknown): string {
  if (typeof name !== 'string' || !JOB_NAME.test(name)) {
    throw new InvalidJobDefinitionError(
      'name',
      name,
      'must be 1-64 characters of A-Z a-z 0-9 _ -, starting with a letter',
    );
  }
  return name;
}

/**
 * Validate an IANA zone name against the runtime's ICU data (the same data Luxon uses).
 * Abbreviations such as `CET` or offsets such as `+01:00` are rejected: Scheduler wants a zone name.
 * @returns the canonical spelling the runtime reports.
 * @throws InvalidJobDefinitionError naming `timeZone` and the value.
 */
export function validateTimeZone(timeZone: unknown, field = 'timeZone'): string {
  if (typeof timeZone !== 'string' || timeZone.length === 0 || /^[+-]\d/.test(timeZone)) {
    throw new InvalidJobDefinitionError(
      field,
      timeZone,
      'must be an IANA time zone name such as "Europe/Berlin"',
    );
  }
  try {
    new Intl.DateTimeFormat('en-US', { timeZone }).format(0);
  } catch {
    throw new InvalidJobDefinitionError(field, timeZone, 'is not an IANA time zone known to this runtime');
  }
  if (timeZone !== 'UTC' && !timeZone.includes('/')) {
    throw new InvalidJobDefinitionError(
      field,
      timeZone,
      'must be an IANA zone name (Area/City), not an abbreviation',
    );
  }
  return timeZone;
}
