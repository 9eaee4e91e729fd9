/**
 * An ECS job's task as a real child process: `node` running the task entry (`cronfence/ecs-task`) with
 * the environment the ECS construct gives the container, against a DynamoDB endpoint (DynamoDB Local).
 * Drills, `npm start -- --ecs` and `cronfence/testing` send it real signals (SIGTERM, SIGKILL, SIGSTOP)
 * the way ECS does, and read the one result line it prints.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { EcsTaskResult } from '../../lib/runtime/ecs-task-session.js';

/** Options of {@link startEcsTask}. */
export interface EcsTaskProcessOptions {
  /** The jobs module (path or specifier), as `CRONFENCE_JOBS_MODULE`. */
  readonly jobsModule: string;
  readonly job: string;
  /** The occurrence, as Scheduler's container override sets `CRONFENCE_OCCURRENCE`. */
  readonly occurrence: {
    readonly scheduledTime: string;
    readonly attempt?: number;
    readonly executionId?: string;
    readonly trigger?: string;
    readonly requestedBy?: string;
  };
  /** The library table. */
  readonly tableName: string;
  /** DynamoDB endpoint (`DYNAMODB_ENDPOINT`). */
  readonly endpoint: string;
  /** Further environment (application tables' variables, `CRONFENCE_STOP_TIMEOUT_SECONDS`, ...). */
  readonly env?: Readonly<Record<string, string>>;
  /** Working directory (where a relative jobs module resolves). @default process.cwd() */
  readonly cwd?: string;
  /**
   * Options for `node` before the entry, e.g. `['--import', 'tsx']` for a TypeScript jobs module.
   * @default [] (this repository's sources always run through tsx)
   */
  readonly nodeArgs?: readonly string[];
}

/** A started task. */
export interface EcsTaskProcess {
  readonly child: ChildProcess;
  readonly pid: number;
  /** Every stdout line so far (the observer's JSON logs, then the result line). */
  readonly lines: readonly string[];
  /** Send a real signal to the process. */
  signal(name: NodeJS.Signals): void;
  /** Resolves when the process has exited: its exit code (null when a signal ended it) and result line. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; result?: EcsTaskResult }>;
}

const here = dirname(fileURLToPath(import.meta.url));

/**
 * The entry to run: the built `dist/lib/entries/ecs-task.js` beside this file when it runs compiled (the
 * installed package), else the TypeScript source through tsx (this repository).
 */
export function ecsTaskEntry(): { args: string[] } {
  if (import.meta.url.endsWith('.ts'))
    return { args: ['--import', 'tsx', resolve(here, '../../lib/entries/ecs-task.ts')] };
  return { args: [resolve(here, '../../lib/entries/ecs-task.js')] };
}

/** Start the task entry as a child process (`node`, the same binary that runs this process). */
export function startEcsTask(o: EcsTaskProcessOptions): EcsTaskProcess {
  const { args } = ecsTaskEntry();
  const child = spawn(process.execPath, [...(o.nodeArgs ?? []), ...args], {
    cwd: o.cwd ?? process.cwd(),
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
      AWS_SDK_JS_SUPPRESS_MAINTENANCE_MODE_MESSAGE: '1',
      POWERTOOLS_METRICS_DISABLED: 'true',
      DYNAMODB_ENDPOINT: o.endpoint,
      CRONFENCE_TABLE: o.tableName,
      CRONFENCE_JOBS_MODULE: o.jobsModule,
      CRONFENCE_JOB: o.job,
      CRONFENCE_OCCURRENCE: JSON.stringify(o.occurrence),
      ...o.env,
    },
  });
  const lines: string[] = [];
  let rest = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    const parts = (rest + chunk).split('\n');
    rest = parts.pop() ?? '';
    lines.push(...parts.filter((l) => l !== ''));
  });
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (c: string) => {
    stderr = (stderr + c).slice(-8_000);
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; result?: EcsTaskResult }>(
    (resolveExit) => {
      child.on('close', (code, signal) => {
        if (rest !== '') lines.push(rest);
        const line = lines.findLast((l) => l.startsWith('{"cronfence":"ecs-task"'));
        const result = line ? (JSON.parse(line) as EcsTaskResult) : undefined;
        if (!result && code !== null && code !== 0 && stderr) lines.push(`stderr: ${stderr}`);
        resolveExit({ code, signal, ...(result && { result }) });
      });
    },
  );
  if (child.pid === undefined) throw new Error('the ECS task process did not start');
  return {
    child,
    pid: child.pid,
    lines,
    signal: (name) => child.kill(name),
    exited,
  };
}
