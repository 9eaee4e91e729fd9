/**
 * The task entry of an ECS job as its container runs it, for the IAM test: `node ecs-task.mjs` from the
 * image directory the synth staged in cdk.out (the bundled `cronfence/ecs-task` and jobs module), with
 * the task definition's container environment, the overrides Scheduler renders into RunTask, and the
 * task role as the access key id, DynamoDB pointed at a recording endpoint.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ECS_JOBS_FILE, ECS_TASK_FILE } from '../../../cdk/constructs/ecs-image.js';
import type { EcsTaskResult } from '../../../lib/runtime/ecs-task-session.js';
import type { Deployment } from './deployment.js';
import { ecsTask } from './ecs.js';
import { REGION } from './template.js';

const run = promisify(execFile);

/** What one task's entry did. */
export interface EntryRun {
  /** The process's exit status. */
  readonly code: number;
  /** Its result line (`{"cronfence":"ecs-task",...}`). */
  readonly result?: EcsTaskResult;
  readonly output: string;
}

/** The container environment RunTask overrides carry (`containerOverrides[name=job].environment`). */
function overrideEnv(overrides: unknown): Record<string, string> {
  const o = overrides as {
    containerOverrides?: { name: string; environment?: { name: string; value: string }[] }[];
  };
  const job = o.containerOverrides?.find((c) => c.name === 'job');
  return Object.fromEntries((job?.environment ?? []).map((e) => [e.name, e.value]));
}

/**
 * Run job `job`'s task entry once, in its own process, until it exits.
 * @param overrides the RunTask `overrides` (e.g. the schedule's Input as Scheduler renders it).
 * @param endpoint DynamoDB endpoint (`AWS_ENDPOINT_URL_DYNAMODB`).
 * @param taskId the task's id (the last segment of the metadata endpoint URI ECS sets).
 */
export async function runTaskEntry(
  d: Deployment,
  job: string,
  o: { overrides: unknown; endpoint: string; taskId: string; env?: Readonly<Record<string, string>> },
): Promise<EntryRun> {
  const task = ecsTask(d, job);
  const dir = join(d.outdir, '.cronfence-ecs', task.family);
  const env = {
    PATH: process.env.PATH ?? '',
    ...task.environment,
    ...o.env,
    ...overrideEnv(o.overrides),
    CRONFENCE_JOBS_MODULE: join(dir, ECS_JOBS_FILE),
    ECS_CONTAINER_METADATA_URI_V4: `http://169.254.170.2/v4/${o.taskId}`,
    AWS_REGION: REGION,
    AWS_ACCESS_KEY_ID: task.taskRole,
    AWS_SECRET_ACCESS_KEY: 'iam-test',
    AWS_ENDPOINT_URL_DYNAMODB: o.endpoint,
  };
  let code = 0;
  let output: string;
  try {
    const r = await run(process.execPath, ['--enable-source-maps', join(dir, ECS_TASK_FILE)], {
      cwd: dir,
      env,
      timeout: 120_000,
      maxBuffer: 16 * 1024 * 1024,
    });
    output = `${r.stdout}${r.stderr}`;
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    code = typeof e.code === 'number' ? e.code : -1;
    output = `${e.stdout ?? ''}${e.stderr ?? ''}`;
  }
  const line = output.split('\n').findLast((l) => l.startsWith('{"cronfence":"ecs-task"'));
  return { code, output, ...(line && { result: JSON.parse(line) as EcsTaskResult }) };
}
