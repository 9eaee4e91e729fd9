/**
 * A throw-away copy of the repository (its tracked and new files, with a symlink to this checkout's
 * node_modules) for tests that change the app as a user would (add a job, break a job file) and then
 * run its commands as subprocesses.
 */
import { execFile, execFileSync } from 'node:child_process';
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

/** This checkout. */
export const ROOT = resolve(import.meta.dirname, '../..');
const TSX = join(ROOT, 'node_modules/.bin/tsx');

/** What a subprocess printed and its exit code. */
export interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** A copy of the repository in a temporary directory. */
export interface RepoCopy {
  readonly dir: string;
  /** Read a file of the copy. */
  read(path: string): string;
  /** Write a file of the copy. */
  write(path: string, text: string): void;
  /** `npx tsx <script> <args>` in the copy (e.g. `bin/cronfence.ts runs x`); never rejects. */
  tsx(script: string, args: readonly string[], env: Record<string, string>, timeoutMs?: number): Promise<Run>;
  remove(): void;
}

/** Copy the repository's files (tracked and not ignored) into a fresh temporary directory. */
export function copyRepo(): RepoCopy {
  const dir = mkdtempSync(join(tmpdir(), 'cronfence-copy-'));
  const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], {
    cwd: ROOT,
    encoding: 'utf8',
  })
    .split('\n')
    .filter(Boolean);
  for (const f of files) {
    mkdirSync(dirname(join(dir, f)), { recursive: true });
    try {
      copyFileSync(join(ROOT, f), join(dir, f));
    } catch {
      // listed but deleted in the working tree: not part of the copy
    }
  }
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  return {
    dir,
    read: (p) => readFileSync(join(dir, p), 'utf8'),
    write: (p, text) => writeFileSync(join(dir, p), text),
    tsx: (script, args, env, timeoutMs = 120_000) =>
      new Promise((done) => {
        execFile(TSX, [script, ...args], { cwd: dir, env, timeout: timeoutMs }, (err, stdout, stderr) => {
          done({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr });
        });
      }),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** The environment of a subprocess with no AWS access (no credentials, no metadata lookups). */
export function offlineEnv(extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '/tmp',
    AWS_REGION: 'us-east-1',
    AWS_EC2_METADATA_DISABLED: 'true',
    AWS_CONFIG_FILE: '/nonexistent/config',
    AWS_SHARED_CREDENTIALS_FILE: '/nonexistent/credentials',
    ...extra,
  };
}

/** `npx cdk synth` of the copy without bundling (the CDK's `aws:cdk:bundling-stacks` context): the template. */
export async function synthCopy(copy: RepoCopy): Promise<{ run: Run; template?: Template }> {
  const out = join(copy.dir, 'cdk.out');
  const run = await copy.tsx(
    'cdk/app.ts',
    [],
    offlineEnv({ CDK_OUTDIR: out, CDK_CONTEXT_JSON: JSON.stringify({ 'aws:cdk:bundling-stacks': [] }) }),
  );
  if (run.code !== 0) return { run };
  return {
    run,
    template: JSON.parse(readFileSync(join(out, 'Cronfence.template.json'), 'utf8')) as Template,
  };
}

/** The parts of a CloudFormation template the tests read. */
export interface Template {
  readonly Resources: Record<string, { Type: string; Properties?: Record<string, unknown> }>;
}

/** Resources of one type. */
export function resourcesOf(t: Template, type: string): Record<string, unknown>[] {
  return Object.values(t.Resources)
    .filter((r) => r.Type === type)
    .map((r) => r.Properties ?? {});
}
