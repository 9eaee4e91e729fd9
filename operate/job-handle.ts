/**
 * A job's handle (`Operator.job(name)`), as Temporal's `ScheduleHandle`: every operation an operator
 * runs on one job, each returning a plain view. Reading records (`describe`, `runs`, `lease`,
 * `effects`, `history`) and settling an effect (`resolveEffect`) need only the job's name; `pause`,
 * `resume`, `trigger`, `planBackfill` and `backfill` need its code (the operator's `jobs`).
 */
import { JOB_NAME_PATTERN } from '../lib/core/job-definition.js';
import type { JobHandler } from '../lib/runtime/define-job.js';
import {
  type BackfillOptions,
  type BackfillPlanView,
  type BackfillRange,
  type BackfillResult,
  backfillJob,
  planJobBackfill,
} from './backfill.js';
import { describeJob, type JobDescription } from './describe.js';
import {
  type EffectsOptions,
  type EffectView,
  listEffects,
  type ResolvedEffectView,
  type ResolveOptions,
  resolveEffect,
} from './effects.js';
import { type JobHistory, jobHistory } from './history.js';
import { usage } from './input.js';
import { type LeaseView, leaseViews } from './lease.js';
import {
  type PauseOptions,
  type PauseView,
  pauseJob,
  type ResumeOptions,
  type ResumeView,
  resumeJob,
} from './pause.js';
import { type JobRunsOptions, jobRuns, type RunView } from './runs.js';
import type { JobSession } from './session.js';
import {
  previewTrigger,
  type TriggerOptions,
  type TriggerPreview,
  type TriggerResult,
  triggerJob,
} from './trigger.js';

/** The operations on one job. Create it with `Operator.job(name)`. */
export class JobHandle {
  readonly #s: JobSession;
  /** The job's name. */
  readonly name: string;

  constructor(session: JobSession, name: string) {
    this.#s = session;
    this.name = name;
  }

  /** The name, checked for its form before a key is built from it. @throws InvalidArgumentError naming `<job>` */
  #checkedName(): string {
    if (!JOB_NAME_PATTERN.test(this.name))
      throw usage('<job>', this.name, 'is not a job name (1-64 of A-Z a-z 0-9 _ -, starting with a letter)');
    return this.name;
  }

  /** The job's code. @throws InvalidArgumentError naming `<job>` and the known jobs */
  async definition(): Promise<JobHandler> {
    return this.#s.handler(this.name);
  }

  /**
   * Definition and next occurrences (when the job's code is given), lease, pause and lease version.
   * @throws InvalidArgumentError naming `<job>`; StoreError
   */
  async describe(): Promise<JobDescription> {
    const job = this.#checkedName();
    const handler = await this.#s.handler(job).catch(() => undefined);
    return describeJob(this.#s, job, handler);
  }

  /** The job's run records, newest slot first. No job code. @throws InvalidArgumentError; StoreError */
  async runs(o: JobRunsOptions = {}): Promise<RunView[]> {
    return jobRuns(this.#s, this.#checkedName(), o);
  }

  /**
   * The job's lease (one view, or one per shard of a sharded job; only `shard`'s when given). No job code.
   * @throws InvalidArgumentError naming `shard`; StoreError
   */
  async lease(o: { readonly shard?: number } = {}): Promise<LeaseView[]> {
    return leaseViews(this.#s, this.#checkedName(), o.shard);
  }

  /** The job's effects in needs-review or not terminal. No job code. @throws StoreError */
  async effects(o: Omit<EffectsOptions, 'job'> = {}): Promise<EffectView[]> {
    return listEffects(this.#s, { ...o, job: this.#checkedName() });
  }

  /**
   * Settle effect `key` of this job: conditioned on the version shown (`expect`, else read now).
   * No job code. @throws EffectChangedError, EffectInFlightError, EffectNotInReviewError; InvalidArgumentError
   */
  async resolveEffect(key: string, o: ResolveOptions): Promise<ResolvedEffectView> {
    return resolveEffect(this.#s, this.#checkedName(), key, o);
  }

  /** The job's run records, lease and effects over [`fromMs`, `toMs`] (at most 92 days). No job code. */
  async history(fromMs: number, toMs: number): Promise<JobHistory> {
    return jobHistory(this.#s, this.#checkedName(), fromMs, toMs);
  }

  /** Pause the job at its lease. @throws LeaseChangedError; InvalidArgumentError; StoreError */
  async pause(o: PauseOptions): Promise<PauseView> {
    return pauseJob(this.#s, await this.definition(), o);
  }

  /** Clear the job's pause and list the slots it skipped. @throws LeaseChangedError; InvalidArgumentError */
  async resume(o: ResumeOptions = {}): Promise<ResumeView> {
    return resumeJob(this.#s, await this.definition(), o);
  }

  /** Run one slot now as a manual run. @throws LeaseBusyError, LeaseChangedError; InvalidArgumentError */
  async trigger(o: TriggerOptions = {}): Promise<TriggerResult> {
    return triggerJob(this.#s, await this.definition(), o);
  }

  /** The slot a trigger would run and the lease version; invokes nothing. @throws LeaseChangedError */
  async previewTrigger(o: TriggerOptions = {}): Promise<TriggerPreview> {
    return previewTrigger(this.#s, await this.definition(), o);
  }

  /** The slots a backfill of `range` would run; reads and invokes nothing. @throws InvalidArgumentError */
  async planBackfill(range: BackfillRange): Promise<BackfillPlanView> {
    const plan = planJobBackfill(this.#s, await this.definition(), range);
    this.#s.checkTableSetting();
    return plan;
  }

  /** Re-run the range's slots as manual runs and summarize their records. @throws LeaseBusyError, ... */
  async backfill(o: BackfillOptions): Promise<BackfillResult> {
    return backfillJob(this.#s, await this.definition(), o);
  }
}
