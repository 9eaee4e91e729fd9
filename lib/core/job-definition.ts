import * as v from 'valibot';
import type { CheckInOptions } from './check-in.js';
import { InvalidJobDefinitionError } from './input-errors.js';
import type { OverlapOptions } from './overlap.js';
import type { DstGapPolicy } from './schedule/dst-gap.js';

/**
 * The static part of a job: what the runtime, the emulator, the sweeper and the CDK app read.
 * Produced (validated) by `defineJob`; the same object is attached to the Lambda handler as
 * `handler.job`, so a schedule string is written once.
 */
export interface JobDefinition {
  /** Job name: 1–64 chars of `[A-Za-z0-9_-]`, starting with a letter (a Scheduler schedule name, a key part). */
  readonly name: string;
  /**
   * The job's stable identity in the library table, when it differs from `name`: the lease (its fence
   * and done set), the run records and the effects are keyed by it, so a job renamed with `id` set to
   * its old name keeps all three (docs/design.md "Identity across the job's lifecycle"). Same charset
   * as `name`. Read it with {@link jobKeyOf}. @default name
   */
  readonly id?: string;
  /** EventBridge Scheduler expression: `cron(m h dom mon dow year)`, `rate(n unit)` or `at(yyyy-mm-ddThh:mm:ss)`. */
  readonly schedule: string;
  /**
   * IANA time zone the schedule is evaluated in (Scheduler's ScheduleExpressionTimezone), spelt as IANA
   * spells it (`Europe/Berlin`, not `europe/berlin`: Scheduler is case-sensitive). @default 'UTC'
   */
  readonly timeZone: string;
  /** Lease settings. */
  readonly lease: {
    /** How long a claim (or renewal) holds the lease, in seconds. Must be > 0 and ≤ `timeoutSeconds`. */
    readonly durationSeconds: number;
    /** Renew when this fraction of the lease has passed. @default 1/3 */
    readonly renewFraction: number;
  };
  /**
   * The job's deadline, in seconds: a Lambda job's function timeout (max 900); an ECS job's own deadline
   * (max 604800, 7 days), enforced by the task runtime since ECS stops no task by itself. @default 60
   */
  readonly timeoutSeconds: number;
  /**
   * Where the job runs: `lambda` (a function Scheduler invokes) or `ecs` (a Fargate task Scheduler's ECS
   * target starts, running `cronfence/ecs-task`; docs/design.md "Runtimes"). Same `run(ctx)`, same `ctx`.
   * Container sizing is the CDK construct's. @default 'lambda'
   */
  readonly runtime: JobRuntime;
  /**
   * Which local date a slot's business date is: the slot's own (`slot-date`) or the day before
   * (`previous-day`, for "settle yesterday" jobs). @default 'slot-date'
   */
  readonly businessDate: 'slot-date' | 'previous-day';
  /** DST gap policy (docs/design.md "Time", lib/core/schedule/dst-gap.ts). @default 'shift' for crons at most daily, else 'skip' */
  readonly dstGap?: DstGapPolicy;
  /** Catch-up of missed slots by the sweeper. */
  readonly catchUp?: {
    readonly mode: 'none' | 'latest' | 'all';
    /** How far back the sweeper looks, in hours. */
    readonly windowHours: number;
    /** At most this many missed slots re-triggered per sweep; the rest are skipped `catch-up-limit`. */
    readonly maxSlotsPerSweep: number;
    /**
     * The first instant this job owns, epoch ms (`catchUp.since` in defineJob): catch-up never
     * triggers a slot before it — the slots another scheduler (or the job under another identity) may
     * have paid (set it to the deploy instant when the job replaces another scheduler or is renamed
     * without `id`). `cronfence check` and synth warn about catch-up without it. @default none
     */
    readonly sinceMs?: number;
  };
  /** Number of shards the job fans out to (docs/design.md "Scale"). @default 1 */
  readonly shards: number;
  /** Days a run record is kept before DynamoDB TTL reaps it. @default 30 */
  readonly runRetentionDays: number;
  /** How many recently succeeded slots the lease item remembers (its bounded done set). @default 32 */
  readonly rememberSlots: number;
  /**
   * Pause the job itself after this many consecutive failed occurrences (like Temporal's
   * pause-on-failure): the failing run's release writes the pause on the lease item, naming the
   * failing runs (lib/core/pause.ts). Unsharded jobs only. @default none (never pauses itself)
   */
  readonly pauseOnFailure?: number;
  /**
   * Rate schedules only: the instant, epoch ms (a whole minute), the rate grid counts from — slots are
   * `rateAnchorMs + k × period`. The deployment derives Scheduler's StartDate from it (the next grid
   * instant), so slot ids stay the same across redeploys. @default 0 (1970-01-01T00:00:00Z)
   */
  readonly rateAnchorMs?: number;
  /**
   * Check-ins to an external cron monitor (Sentry Crons, healthchecks.io): the run that claims an
   * occurrence reports `in_progress`, then `ok` or `error`, never delaying or failing the run
   * (lib/core/check-in.ts). @default none
   */
  readonly checkIn?: CheckInOptions;
  /**
   * What an occurrence does when another occurrence of the job holds the lease (lib/core/overlap.ts,
   * docs/design.md "Overlap policies"): the policy and the fields it reads, defaults filled in. Read it
   * with `overlapOf(definition)`. @default none (policy `skip`)
   */
  readonly overlap?: OverlapOptions;
}

/**
 * The key a job's lease, run records and effects are stored under: its `id` when it has one, else its
 * name (`JOB#<key>`, `EFFECT#<key>#<idempotencyKey>`).
 * @example jobKeyOf({ name: 'settle', id: 'settle-v1' }); // 'settle-v1'
 */
export function jobKeyOf(definition: Pick<JobDefinition, 'name' | 'id'>): string {
  return definition.id ?? definition.name;
}

/** The runtimes a job can run on (docs/design.md "Runtimes"). */
export const JOB_RUNTIMES = ['lambda', 'ecs'] as const;
/** Union of {@link JOB_RUNTIMES}. */
export type JobRuntime = (typeof JOB_RUNTIMES)[number];

/** Maximum Lambda timeout, in seconds (AWS Lambda quotas). */
export const MAX_LAMBDA_TIMEOUT_SECONDS = 900;

/** Job names: 1–64 chars of `[A-Za-z0-9_-]`, first a letter. */
export const JOB_NAME_PATTERN = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;

/**
 * A job's Lambda function name when the deployment does not choose one: `cronfence-<job>`. The CDK
 * names the function so, `cronfence backfill`/`trigger` invoke it by that name, and the sweeper
 * invokes it so when `CRONFENCE_JOBS` gives no ARN. Lambda function names are at most 64 characters
 * (Lambda API reference, `FunctionName`): the CDK refuses a job name over 54 without its own name.
 */
export function defaultFunctionName(job: string): string {
  return `cronfence-${job}`;
}

/**
 * A job name: a subset of Scheduler's schedule-name charset that is also safe inside `JOB#<name>`
 * keys (no `#`). Shared by the job schema and the sweeper's environment schema.
 */
export const JobNameSchema = v.pipe(
  v.string('must be 1-64 characters of A-Z a-z 0-9 _ -, starting with a letter'),
  v.regex(JOB_NAME_PATTERN, 'must be 1-64 characters of A-Z a-z 0-9 _ -, starting with a letter'),
);

function knownToRuntime(timeZone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone }).format(0);
    return true;
  } catch {
    return false;
  }
}

let zoneNames: ReadonlyMap<string, string> | undefined;

/**
 * The IANA spelling of a zone name the runtime knows, whatever its letter case: `Intl` takes
 * `europe/berlin`, Scheduler's ScheduleExpressionTimezone does not. From the runtime's own answer
 * (`resolvedOptions()`, which some runtimes also map a link to its target) or its list of canonical
 * names; a link the runtime maps away (`asia/kolkata` → `Asia/Calcutta` on Node 20) and that is all
 * lower or all upper case is given the target's spelling (no IANA name is single-case but `UTC`).
 * @returns the name as IANA spells it, or `timeZone` itself when it is already so or cannot be told.
 */
export function ianaSpelling(timeZone: string): string {
  let resolved: string;
  try {
    resolved = new Intl.DateTimeFormat('en-US', { timeZone }).resolvedOptions().timeZone;
  } catch {
    return timeZone;
  }
  const lower = timeZone.toLowerCase();
  if (resolved.toLowerCase() === lower) return resolved;
  zoneNames ??= new Map(Intl.supportedValuesOf('timeZone').map((z) => [z.toLowerCase(), z]));
  const listed = zoneNames.get(lower);
  if (listed !== undefined) return listed;
  const singleCase = timeZone === lower || timeZone === timeZone.toUpperCase();
  return singleCase && timeZone.includes('/') ? resolved : timeZone;
}

/**
 * An IANA zone name known to the runtime's ICU data (the data Luxon and Lambda's Node use), spelt as
 * IANA spells it ({@link ianaSpelling}: Scheduler's ScheduleExpressionTimezone is case-sensitive).
 * Abbreviations such as `CET` and offsets such as `+01:00` are refused: Scheduler wants a zone name.
 */
export const TimeZoneSchema = v.pipe(
  v.string('must be an IANA time zone name such as "Europe/Berlin"'),
  v.check(
    (z) => z.length > 0 && !/^[+-]\d/.test(z),
    'must be an IANA time zone name such as "Europe/Berlin"',
  ),
  v.check(knownToRuntime, 'is not an IANA time zone known to this runtime'),
  v.check(
    (z) => z === 'UTC' || z.includes('/'),
    'must be an IANA zone name (Area/City), not an abbreviation',
  ),
  v.check(
    (z) => ianaSpelling(z) === z,
    (issue) =>
      `must be spelt as IANA spells it, "${ianaSpelling(String(issue.input))}" (EventBridge Scheduler's ScheduleExpressionTimezone is case-sensitive)`,
  ),
);

function parseField<T>(schema: v.GenericSchema<unknown, T>, field: string, value: unknown): T {
  const result = v.safeParse(schema, value, { abortPipeEarly: true });
  if (!result.success) throw new InvalidJobDefinitionError(field, value, result.issues[0].message);
  return result.output;
}

/**
 * Validate a job name ({@link JobNameSchema}).
 * @throws InvalidJobDefinitionError naming `name` and the value.
 */
export function validateJobName(name: unknown): string {
  return parseField(JobNameSchema, 'name', name);
}

/**
 * Validate an IANA zone name ({@link TimeZoneSchema}).
 * @param field the field named in the error. @default 'timeZone'
 * @returns the name, unchanged.
 * @throws InvalidJobDefinitionError naming `field` and the value.
 */
export function validateTimeZone(timeZone: unknown, field = 'timeZone'): string {
  return parseField(TimeZoneSchema, field, timeZone);
}
