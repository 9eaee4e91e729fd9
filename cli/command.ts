/**
 * The one skeleton of every data command: parse (commander) -> open the operator API on the flags ->
 * call it -> render its view as JSON (`--json`) or text -> close; an error is printed as one line and
 * sets the exit code (cli/exit-codes.ts). Commands are the operator API's functions; a command's
 * body only picks the operation and says how its view reads as text.
 */
import type { Command } from 'commander';
import { libraryTable } from '../lib/store/schema.js';
import { type Operator, openOperator } from '../operate/operator.js';
import type { HandlerSource } from '../operate/registry.js';
import { ExitCode } from './exit-codes.js';
import { out, reportError, toJson } from './output.js';

/** The flags every data command takes. */
export interface OperatorFlags {
  readonly endpoint?: string;
  readonly region?: string;
  readonly profile?: string;
  readonly table?: string;
  /** Print JSON instead of text. */
  readonly json?: boolean;
  /** The jobs module (`--jobs`), on commands that need the job's code. */
  readonly jobs?: string;
}

/** What a command prints and how it exits. */
export interface Rendered {
  /** What `--json` prints. */
  readonly json: unknown;
  /** What a terminal shows otherwise. */
  readonly text: () => string;
  /** @default ExitCode.Ok */
  readonly exitCode?: number;
}

/** A refusal printed as `cronfence: <message>` on stderr, with its exit code (JSON or not). */
export interface Refused {
  readonly refused: string;
  readonly exitCode: number;
}

/** Add `--endpoint`, `--region`, `--profile`, `--table` and `--json` to a command. */
export function withConnectionOptions(cmd: Command): Command {
  return cmd
    .option(
      '--endpoint <url>',
      'DynamoDB endpoint, e.g. DynamoDB Local (default: DYNAMODB_ENDPOINT, then a running `npm start`)',
    )
    .option('--region <region>', 'AWS region (default: AWS_REGION / the profile)')
    .option('--profile <name>', 'AWS shared-config profile (default: AWS_PROFILE / the default chain)')
    .option(
      '--table <name>',
      `library table (default: ${libraryTable.envVar}, then "${libraryTable.defaultName}")`,
    )
    .option('--json', 'print JSON instead of a table');
}

/** Add `--jobs <module>` to a command. */
export function withJobsOption(cmd: Command): Command {
  return cmd.option(
    '--jobs <module>',
    "module (.js, or .ts through tsx) exporting `jobs` (a defineRegistry list) or `handlers` (defineJob handlers) (default: the project config's `jobs`, else functions/index.ts)",
  );
}

/** Print a command's result and return its exit code. */
export function render(result: Rendered | Refused, json: boolean): number {
  if ('refused' in result) {
    process.stderr.write(`cronfence: ${result.refused}\n`);
    return result.exitCode;
  }
  out(json ? toJson(result.json) : result.text());
  return result.exitCode ?? ExitCode.Ok;
}

/**
 * A commander action running `body` on an operator opened from the command's flags.
 * @param defaults the jobs used without `--jobs` (undefined: the command needs no job code).
 * @param body gets the operator, the flags, then the command's arguments.
 */
export function operatorAction<F extends OperatorFlags, A extends unknown[]>(
  defaults: HandlerSource | undefined,
  body: (ops: Operator, flags: F, ...args: A) => Promise<Rendered | Refused>,
) {
  return async (...raw: unknown[]): Promise<void> => {
    // commander calls an action with the arguments, then the options, then the command.
    const args = raw.slice(0, -2) as A;
    const flags = raw[raw.length - 2] as F;
    const jobs = flags.jobs ?? defaults;
    const ops = openOperator({
      ...(flags.endpoint !== undefined && { endpoint: flags.endpoint }),
      ...(flags.region !== undefined && { region: flags.region }),
      ...(flags.profile !== undefined && { profile: flags.profile }),
      ...(flags.table !== undefined && { table: flags.table }),
      ...(jobs !== undefined && { jobs }),
    });
    try {
      process.exitCode = render(await body(ops, flags, ...args), Boolean(flags.json));
    } catch (err) {
      process.exitCode = reportError(err);
    } finally {
      ops.close();
    }
  };
}
