/**
 * The CLI's exit codes and the one mapping from an error to its code: 2 for bad input (nothing was
 * read, written or invoked: a flag, a setting, a job name, a job definition, a table that does not
 * exist), 1 for everything else (the operation ran and failed, was refused by a conditioned write,
 * or could not reach its endpoint).
 */
import { InvalidArgumentError as CommanderArgumentError } from 'commander';
import { ExitCode, exitCodeOf, StoreError } from '../lib/errors.js';

/** Exit codes of every subcommand (the error model's). */
export { ExitCode };

/** The SDK error under a StoreError (the request's own failure), else the error itself. */
export function requestErrorOf(err: unknown): Error | undefined {
  return err instanceof StoreError ? (err.cause as Error | undefined) : (err as Error | undefined);
}

/**
 * The exit code an error ends a command with: the error's category decides it ({@link exitCodeOf}:
 * 2 for input and configuration, 1 for conflict, superseded, transient and errors that are not
 * cronfence's); commander's argument errors are input, and a table that does not exist is a wrong
 * `--table` / `--region` / `--endpoint` (input).
 */
export function exitCodeFor(err: unknown): ExitCode {
  if (err instanceof CommanderArgumentError) return ExitCode.Usage;
  if (requestErrorOf(err)?.name === 'ResourceNotFoundException') return ExitCode.Usage;
  return exitCodeOf(err);
}
