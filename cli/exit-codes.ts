/**
 * The CLI's exit codes and the one mapping from an error to its code: 2 for bad input (nothing was
 * read, written or invoked: a flag, a setting, a job name, a job definition, a table that does not
 * exist), 1 for everything else (the operation ran and failed, was refused by a conditioned write,
 * or could not reach its endpoint).
 */
import { InvalidArgumentError as CommanderArgumentError } from 'commander';
import {
  CronfenceError,
  EndpointUnreachableError,
  ErrorCode,
  StoreError,
  UnknownJobError,
} from '../lib/errors.js';

/** Exit codes of every subcommand. */
export const ExitCode = {
  Ok: 0,
  /** The operation ran but found failures (failed runs, refused writes, invoke errors). */
  Failure: 1,
  /** Bad input: nothing was read, written or invoked. */
  Usage: 2,
} as const;

/** Error codes that mean bad input. */
const USAGE_CODES: readonly string[] = [
  ErrorCode.InvalidArgument,
  ErrorCode.UnknownJob,
  ErrorCode.InvalidJobDefinition,
  ErrorCode.InvalidSchedule,
  ErrorCode.Configuration,
  ErrorCode.InvalidEvent,
];

/** The SDK error under a StoreError (the request's own failure), else the error itself. */
export function requestErrorOf(err: unknown): Error | undefined {
  return err instanceof StoreError ? (err.cause as Error | undefined) : (err as Error | undefined);
}

/** The exit code an error ends a command with. */
export function exitCodeFor(err: unknown): number {
  const cause = requestErrorOf(err);
  // A table that does not exist is a wrong --table / --region / --endpoint: bad input.
  if (cause?.name === 'ResourceNotFoundException') return ExitCode.Usage;
  if (cause instanceof EndpointUnreachableError) return ExitCode.Failure;
  if (err instanceof UnknownJobError || err instanceof CommanderArgumentError) return ExitCode.Usage;
  if (err instanceof CronfenceError && USAGE_CODES.includes(err.code)) return ExitCode.Usage;
  return ExitCode.Failure;
}
