/**
 * The operator API's entry: `openOperator(options)` gives an {@link Operator} on one library table
 * (DynamoDB Local or AWS, resolved as the CLI resolves it) and, optionally, the project's jobs.
 * Everything that reads or writes records works from a job's name alone; what needs the job's code
 * (pause and resume: its shards and catch-up; trigger and backfill: its schedule) loads the jobs
 * when first asked. The connection opens on the first read, so bad input is refused before it.
 * Commands are functions that return data, as aws-cdk's CLI and Temporal's `ScheduleHandle` do.
 */
import type { JobHandler } from '../lib/runtime/define-job.js';
import { type CheckReport, checkJobs } from './check.js';
import { type Connection, type ConnectionOptions, connect, libraryTableName } from './connection.js';
import { type EffectsOptions, type EffectView, listEffects } from './effects.js';
import { JobHandle } from './job-handle.js';
import { type JobRow, jobRows } from './jobs.js';
import { type HandlerSource, type JobRegistry, loadRegistry, registryOf, requireJob } from './registry.js';
import { type ProblemRunsOptions, problemRuns, type RunView } from './runs.js';
import type { JobSession } from './session.js';

/** What an {@link Operator} works on. */
export interface OperatorOptions extends ConnectionOptions {
  /**
   * The jobs: a list (a `defineRegistry` list, or a record or array of `defineJob` handlers), a
   * loader of one (called when an operation first needs them), or the path of a module exporting one
   * (`jobs`, `handlers` or a default export; `.ts` through tsx), as the CLI's `--jobs`.
   * @default none: operations that need a job's code refuse, naming the job
   */
  readonly jobs?: HandlerSource | string;
  /** Where defaults are read (`DYNAMODB_ENDPOINT`, `CRONFENCE_TABLE`, `AWS_REGION`, ...). @default process.env */
  readonly env?: NodeJS.ProcessEnv;
  /** The clock, epoch ms. @default Date.now */
  readonly now?: () => number;
}

/** Where jobs given as a list come from, as messages name it. */
const GIVEN_JOBS = 'the jobs passed to openOperator';

/**
 * Operations on one library table: {@link Operator.job} gives a job's handle; the rest list across
 * jobs. Call {@link Operator.close} when done (it destroys the SDK clients).
 */
export class Operator implements JobSession {
  readonly #options: OperatorOptions;
  readonly #env: NodeJS.ProcessEnv;
  #connection: Promise<Connection> | undefined;
  #opened: Connection | undefined;
  #registry: Promise<JobRegistry> | undefined;

  constructor(options: OperatorOptions = {}) {
    this.#options = options;
    this.#env = options.env ?? process.env;
  }

  /** Now, epoch ms (the `now` option's clock). */
  now(): number {
    return (this.#options.now ?? Date.now)();
  }

  /**
   * The connection, opened on the first call. @throws InvalidArgumentError naming `endpoint`,
   * `DYNAMODB_ENDPOINT`, `table`, `CRONFENCE_TABLE`, `region`, `profile` or the stack setting
   */
  connection(): Promise<Connection> {
    this.#connection ??= connect(this.#options, this.#env).then((c) => {
      this.#opened = c;
      return c;
    });
    return this.#connection;
  }

  /**
   * Refuse a broken library-table setting (`table`, `CRONFENCE_TABLE`) without connecting: for
   * operations that send nothing (a backfill plan) but must fail as the real one would.
   * @throws InvalidArgumentError naming `table` or `CRONFENCE_TABLE`
   */
  checkTableSetting(): void {
    libraryTableName(this.#options, this.#env, {});
  }

  /** The jobs, loaded on the first call. @throws InvalidArgumentError naming the module */
  registry(): Promise<JobRegistry> {
    this.#registry ??= (async () => {
      const jobs = this.#options.jobs;
      if (typeof jobs === 'string') return loadRegistry(jobs, []);
      if (typeof jobs === 'function') return loadRegistry(undefined, jobs);
      return registryOf(jobs ?? [], GIVEN_JOBS);
    })();
    return this.#registry;
  }

  /** The handler of job `name`. @throws InvalidArgumentError naming `<job>` and the known jobs */
  async handler(name: string): Promise<JobHandler> {
    return requireJob(await this.registry(), name);
  }

  /** The handle of job `name`; nothing is read until one of its operations is called. */
  job(name: string): JobHandle {
    return new JobHandle(this, name);
  }

  /**
   * Every job's overview: schedule, pause, next and last occurrence, lease holder, problems in 7 days.
   * Needs the jobs. @throws InvalidArgumentError; StoreError
   */
  async jobs(): Promise<JobRow[]> {
    const registry = await this.registry();
    const conn = await this.connection();
    return jobRows(conn.doc, conn.tableName, [...registry.jobs.values()], this.now());
  }

  /** Problem run records across jobs, newest first (`cronfence runs --failed`). No job code. */
  problems(o: ProblemRunsOptions = {}): Promise<RunView[]> {
    return problemRuns(this, o);
  }

  /** Effects in needs-review or not terminal, across jobs or of `o.job` (`cronfence effects`). No job code. */
  effects(o: EffectsOptions = {}): Promise<EffectView[]> {
    return listEffects(this, o);
  }

  /**
   * Check the job definitions (all, or `job`) as of now; reads nothing from AWS. A module refused at
   * import is reported in `errors`. @throws InvalidArgumentError for a module that cannot be loaded
   */
  check(o: { job?: string } = {}): Promise<CheckReport> {
    const jobs = this.#options.jobs;
    if (typeof jobs === 'string') return checkJobs(jobs, [], this.now(), o.job);
    const defaults =
      typeof jobs === 'function' ? jobs : Object.assign(async () => jobs ?? [], { source: GIVEN_JOBS });
    return checkJobs(undefined, defaults, this.now(), o.job);
  }

  /** Destroy the SDK clients (idempotent). */
  close(): void {
    this.#opened?.close();
    this.#opened = undefined;
  }
}

/**
 * Open an operator on the library table `options` names (nothing is read until an operation runs).
 * @example
 * const ops = openOperator({ endpoint: 'http://127.0.0.1:8000', jobs: [nightly] });
 * try {
 *   await ops.job('nightly').pause({ note: 'provider outage', by: 'alice' });
 *   const runs = await ops.job('nightly').runs({ limit: 5 });
 * } finally {
 *   ops.close();
 * }
 */
export function openOperator(options: OperatorOptions = {}): Operator {
  return new Operator(options);
}
