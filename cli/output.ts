/**
 * CLI output: human tables by default, JSON with `--json`; errors as one `cronfence: ...` line on
 * stderr, their exit code from cli/exit-codes.ts.
 */
import { EndpointUnreachableError } from '../lib/errors.js';
import { ExitCode, exitCodeFor, requestErrorOf } from './exit-codes.js';
import { cliMessage } from './flags.js';

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

/** A value as a table cell (`-` for missing). */
export function cell(v: unknown): string {
  return v === undefined || v === null || v === '' ? '-' : String(v);
}

/**
 * Print an error as `cronfence: message` on stderr (with what to check when the table or the endpoint
 * is not there) and return its exit code ({@link exitCodeFor}). The API options the message names are
 * printed as their flags ({@link cliMessage}).
 */
export function reportError(err: unknown): number {
  const cause = requestErrorOf(err);
  if (cause?.name === 'ResourceNotFoundException') {
    process.stderr.write(
      `cronfence: ${cause.message}: check --table (or CRONFENCE_TABLE), --region and --endpoint\n`,
    );
  } else if (cause instanceof EndpointUnreachableError) {
    // The request never reached DynamoDB: the endpoint and where it came from are the whole story.
    process.stderr.write(`cronfence: ${cliMessage(cause)}\n`);
  } else {
    const message = cliMessage(err);
    const unreachable = /ECONNREFUSED|ENOTFOUND|EAI_AGAIN/.test(message)
      ? ' (is the endpoint up? check --endpoint / DYNAMODB_ENDPOINT, or start DynamoDB Local with `npm start -- --hold`)'
      : '';
    process.stderr.write(`cronfence: ${message}${unreachable}\n`);
  }
  return exitCodeFor(err);
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
