/**
 * Runs the `cronfence` CLI as a subprocess (`tsx bin/cronfence.ts ...`), as an operator would, against
 * a test's DynamoDB Local tables. Also seeds run records through the runtime's own store.
 */
import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import type { LocalStack } from '../helpers/local-stack.js';

const ROOT = resolve(import.meta.dirname, '../..');
const TSX = resolve(ROOT, 'node_modules/.bin/tsx');
const BIN = resolve(ROOT, 'bin/cronfence.ts');
/** This repository's development entry: the same commands plus `start`, `drill`, `explore`. */
const DEV_BIN = resolve(ROOT, 'bin/dev.ts');
const DEV_COMMANDS: readonly string[] = ['start', 'drill', 'explore'];

/** What a CLI run printed and its exit code. */
export interface CliResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** The environment pointing the CLI at a test stack (no AWS credentials, no metadata lookups). */
export function stackEnv(stack: LocalStack, extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '/tmp',
    DYNAMODB_ENDPOINT: stack.endpoint,
    CRONFENCE_TABLE: stack.tableName,
    REPORTS_TABLE: stack.reports,
    SETTLEMENTS_TABLE: stack.settlements,
    AWS_REGION: 'us-east-1',
    AWS_EC2_METADATA_DISABLED: 'true',
    AWS_CONFIG_FILE: '/nonexistent/config',
    AWS_SHARED_CREDENTIALS_FILE: '/nonexistent/credentials',
    ...extra,
  };
}

/**
 * Run `cronfence <args>` with exactly `env` (`start`, `drill` and `explore` through bin/dev.ts, the
 * repository's development entry); never rejects.
 */
export function cli(
  args: readonly string[],
  env: Record<string, string>,
  cwd: string = ROOT,
): Promise<CliResult> {
  return new Promise((done) => {
    const bin = DEV_COMMANDS.includes(String(args[0])) ? DEV_BIN : BIN;
    execFile(TSX, [bin, ...args], { env, cwd, timeout: 50_000 }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
      done({ code, stdout, stderr });
    });
  });
}

/** Parse a CLI's JSON output. */
export function json<T = unknown>(r: CliResult): T {
  try {
    return JSON.parse(r.stdout) as T;
  } catch {
    throw new Error(`not JSON (exit ${r.code}): ${r.stdout}\n${r.stderr}`);
  }
}

export { runRecord, seedRuns } from '../helpers/run-fixtures.js';
