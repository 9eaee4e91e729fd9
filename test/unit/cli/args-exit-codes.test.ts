/**
 * unit: the CLI's argument parsers name the flag and the value, and every error maps to one exit
 * code (cli/exit-codes.ts): 2 for bad input, 1 for the rest. The spawned CLI tests check that a
 * refusal really exits so; these check each parser's message without a process.
 */
import { InvalidArgumentError as CommanderArgumentError } from 'commander';
import { describe, expect, it } from 'vitest';
import { intArg, jobNameArg, listArg, sinceArg } from '../../../cli/args.js';
import { ExitCode, exitCodeFor } from '../../../cli/exit-codes.js';
import {
  ConfigurationError,
  EndpointUnreachableError,
  InvalidArgumentError,
  LeaseBusyError,
  LeaseChangedError,
  StoreError,
} from '../../../lib/errors.js';

const message = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    return [(err as Error).constructor.name, (err as Error).message, exitCodeFor(err)];
  }
  return ['no error'];
};

describe('argument parsers', () => {
  it.each([
    [
      'a job name of a form no job has',
      () => jobNameArg('<job>')('no#pe'),
      '<job> "no#pe" is not a job name',
    ],
    [
      'a malformed --since',
      () => sinceArg('--since')('yesterday'),
      '--since "yesterday" is not an age (30m, 24h, 7d) or a date (yyyy-mm-dd or ISO-8601 instant)',
    ],
    [
      'an unknown outcome',
      () => listArg('--outcome', ['failed', 'succeeded'])('failed,weird'),
      '--outcome "weird" is not one of failed, succeeded (comma-separated)',
    ],
    [
      'a zero --limit',
      () => intArg('--limit', 1, 10_000)('0'),
      '--limit "0" must be an integer from 1 to 10000',
    ],
  ])('refuses %s naming the flag and value, exit 2', (_name, parse, text) => {
    expect(message(parse)).toEqual(['InvalidArgumentError', text, 2]);
  });
});

describe('exit codes', () => {
  const notFound = Object.assign(new Error('Cannot do operations on a non-existent table'), {
    name: 'ResourceNotFoundException',
  });
  it.each([
    ['a commander parse error', new CommanderArgumentError('x'), ExitCode.Usage],
    ['bad input', new InvalidArgumentError('--slot', 'x', 'is not a slot'), ExitCode.Usage],
    ['a bad project config', new ConfigurationError('cronfence.config.json', 1, 'is bad'), ExitCode.Usage],
    ['a table that does not exist', new StoreError('GetItem (lease)', notFound), ExitCode.Usage],
    [
      'an endpoint that cannot be reached',
      new StoreError(
        'GetItem (lease)',
        new EndpointUnreachableError('DYNAMODB_ENDPOINT', 'http://127.0.0.1:9', 'down'),
      ),
      ExitCode.Failure,
    ],
    ['a lease held by a live run', new LeaseBusyError('held', undefined), ExitCode.Failure],
    [
      'a lease that changed since it was shown',
      new LeaseChangedError('j', '1:-', undefined),
      ExitCode.Failure,
    ],
    ['anything else', new Error('boom'), ExitCode.Failure],
  ])('maps %s to exit %s', (_name, err, code) => {
    expect(exitCodeFor(err)).toBe(code);
  });
});
