/**
 * CLI output and exit codes: human tables by default, JSON with `--json`; bad input exits 2 with a
 * message naming the flag and value, operational failures exit 1.
 */
import { userInfo } from 'node:os';
import { InvalidArgumentError as CommanderArgumentError } from 'commander';
import { ErrorCode, exitCodeOf, InvalidArgumentError, isCronfenceError, StoreError } from '../lib/errors.js';

/** Exit codes of every subcommand. */
export const ExitCode = {
  Ok: 0,
  /** The operation ran but found failures (failed runs, refused writes, invoke errors). */
  Failure: 1,
  /** Bad input: nothing was read, written or invoked. */
  Usage: 2,
} as const;

/** One column of a table: header and how to render a row's cell. */
export interface Column<T> {
  readonly header: string;
  readonly cell: (row: T) => string;
  /** Cut cells to this many characters. @default 60 */
  readonly max?: number;
}

/** Options of {@link table}. */
export interface TableOptions {
  /** Print the header line and its rule. @default true */
  readonly header?: boolean;
}

/**
 * Render rows as an aligned text table (header, rule, rows): the ONE table renderer of the CLI's
 * output (`runs`, `lease`, `backfill`, `effects`, `drill`, `explore`, `npm start`, `npm run bench`).
 */
export function table<T>(
  rows: readonly T[],
  columns: readonly Column<T>[],
  options: TableOptions = {},
): string {
  const cells = rows.map((r) =>
    columns.map((c) => {
      const v = c.cell(r);
      const max = c.max ?? 60;
      return v.length > max ? `${v.slice(0, max - 1)}…` : v;
    }),
  );
  const head = options.header ?? true;
  const widths = columns.map((c, i) =>
    Math.max(head ? c.header.length : 0, ...cells.map((row) => (row[i] ?? '').length)),
  );
  const lines = cells.map((row) => tableRow(row, widths));
  return (
    head
      ? [
          tableRow(
            columns.map((c) => c.header),
            widths,
          ),
          tableRow(
            widths.map((w) => '-'.repeat(w)),
            widths,
          ),
          ...lines,
        ]
      : lines
  ).join('\n');
}

/**
 * One line of a table whose column widths are fixed in advance (cells padded, two spaces apart,
 * trailing spaces trimmed): for lines printed as they happen (`npm start`), and {@link table}'s rows.
 */
export function tableRow(values: readonly string[], widths: readonly number[]): string {
  return values
    .map((v, i) => v.padEnd(widths[i] ?? 0))
    .join('  ')
    .trimEnd();
}

/** JSON text of a value: Sets become sorted arrays, bigints strings; 2-space indented. */
export function toJson(value: unknown): string {
  return JSON.stringify(
    value,
    (_k, v) => (v instanceof Set ? [...v].sort() : typeof v === 'bigint' ? v.toString() : v),
    2,
  );
}

/** Print to stdout. */
export function out(text: string): void {
  process.stdout.write(`${text}\n`);
}

/** Epoch ms as an ISO-8601 UTC instant without milliseconds, or `-`. */
export function iso(ms: unknown): string {
  return typeof ms === 'number' && Number.isFinite(ms) && ms > 0
    ? `${new Date(ms).toISOString().slice(0, 19)}Z`
    : '-';
}

/** A value as a table cell (`-` for missing). */
export function cell(v: unknown): string {
  return v === undefined || v === null || v === '' ? '-' : String(v);
}

/** A usage error: exits 2. */
export function usage(argument: string, value: unknown, problem: string): InvalidArgumentError {
  return new InvalidArgumentError(argument, value, problem);
}

/**
 * A free-text value (who, why) trimmed, 1 to `max` characters: the limits the invocation event
 * enforces (lib/core/event.ts), checked before anything is invoked.
 * @param source the flag or environment variable the value came from (named in the error).
 * @throws InvalidArgumentError (exit 2) naming `source` and the value when it is empty or too long.
 */
export function textValue(source: string, value: string, max: number): string {
  const v = value.trim();
  if (v.length === 0 || v.length > max) throw usage(source, value, `must be 1 to ${max} characters`);
  return v;
}

/** The environment variable naming the operator when a command's who-flag is not given. */
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
 * Who runs a command (recorded on what it writes): `flag`'s value, else {@link OPERATOR_ENV}, else the
 * OS user; checked with {@link textValue} naming the source the value came from, so a bad
 * `CRONFENCE_OPERATOR` is named as such and never as the flag the operator did not give.
 * @param flag the command's who-flag (`--by`, `--requested-by`); @param given its value, if given.
 * @param max the longest name the record takes, characters.
 * @throws InvalidArgumentError (exit 2) naming the flag, `CRONFENCE_OPERATOR` or the OS user and the value.
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

/**
 * Print an error as `cronfence: message` on stderr and return its exit code: the error's category
 * decides it ({@link exitCodeOf}: 2 for input and configuration, 1 otherwise); commander's own
 * argument errors are input too.
 */
export function reportError(err: unknown): number {
  const cause = err instanceof StoreError ? (err.cause as Error | undefined) : (err as Error | undefined);
  if (cause?.name === 'ResourceNotFoundException') {
    process.stderr.write(
      `cronfence: ${cause.message}: check --table (or CRONFENCE_TABLE), --region and --endpoint\n`,
    );
    return ExitCode.Usage;
  }
  if (isCronfenceError(cause) && cause.code === ErrorCode.EndpointUnreachable) {
    // The request never reached DynamoDB: the endpoint and where it came from are the whole story.
    process.stderr.write(`cronfence: ${cause.message}\n`);
    return exitCodeOf(cause);
  }
  const message = (err as Error)?.message ?? String(err);
  const unreachable = /ECONNREFUSED|ENOTFOUND|EAI_AGAIN/.test(message)
    ? ' (is the endpoint up? check --endpoint / DYNAMODB_ENDPOINT, or start DynamoDB Local with `npm start -- --hold`)'
    : '';
  process.stderr.write(`cronfence: ${message}${unreachable}\n`);
  if (err instanceof CommanderArgumentError) return ExitCode.Usage;
  return exitCodeOf(err);
}

/** Wrap a subcommand action: errors are reported and set the exit code (2 for bad input, else 1). */
export function action<A extends unknown[]>(fn: (...args: A) => Promise<number | undefined>) {
  return async (...args: A): Promise<void> => {
    try {
      process.exitCode = (await fn(...args)) ?? ExitCode.Ok;
    } catch (err) {
      process.exitCode = reportError(err);
    }
  };
}
