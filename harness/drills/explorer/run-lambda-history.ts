/**
 * Run one history under the Lambda delivery model (lambda-model.ts): each copy is an async event that
 * Lambda retries only after an error or a timeout; the sweeper runs every 15 minutes with the real
 * `sweep` (its catch-up invocations are events too); a redeploy may change a zone, a schedule or a
 * shard count mid-history. Nothing claims at the end for free: the history is over when Lambda has
 * nothing left and three sweeps after the last delivery found nothing to do.
 */
import { definitionId } from '../../../lib/core/liveness.js';
import { Trigger } from '../../../lib/core/outcomes.js';
import type { ShardDispatcher } from '../../../lib/runtime/fan-out.js';
import { type SweepProblem, sweep } from '../../../lib/runtime/sweeper.js';
import { Stage, type StageOptions, type Worker } from '../stage.js';
import type { BackendFactory } from './backends.js';
import type { HistorySpec } from './history.js';
import { skipIsFinal, spawnWorkers } from './history-faults.js';
import { SLOT_MINUTES } from './jobs.js';
import { type Deployment, FIRST_DEPLOYMENT, lambdaJobs, redeployed } from './lambda-jobs.js';
import { type DeadLetter, type LambdaEvent, LambdaModel, SWEEP_PERIOD_MS } from './lambda-model.js';
import { sendBackfill } from './overlap-backfill.js';
import { addStuckHolder } from './overlap-shape.js';
import { SimProvider } from './provider.js';
import type { HistoryOutcome } from './run-history.js';
import type { SendCall } from './shapes.js';

const SLOT_MS = SLOT_MINUTES * 60_000;

/** What the Lambda model adds to a history's outcome. */
export interface LambdaOutcome {
  /** Every copy handed to Lambda: job, scheduled time, and when it was handed off (true time, epoch ms). */
  readonly delivered: readonly {
    readonly job: string;
    readonly scheduledTimeMs: number;
    readonly handOffMs: number;
  }[];
  readonly deadLetters: readonly DeadLetter[];
  /** Definition ids of the sharded job by shard count (for "every shard done"). */
  readonly shardDefs: ReadonlyMap<string, number>;
  /** Lambda retries, by why. */
  readonly retries: readonly { readonly label: string; readonly attempt: number; readonly why: string }[];
  /** When the last event of the history happened, ms after its start. */
  readonly endMs: number;
  /** Problem records the sweeps wrote (what the sweeper's metrics count). */
  readonly sweepProblems: readonly SweepProblem[];
  /** Invocations the model ended at their timeout. */
  readonly timeouts: number;
  /** Frozen environments thawed by their next invocation. */
  readonly thawed: number;
}

/** Options of a run: a broken variant to prove the invariants catch it. */
export interface LambdaRunOptions {
  /**
   * `skip-is-final`: a same-slot skip ends the line (runtime and sweeper), as before liveness.
   * `uncounted-sweeper`: the sweeper writes its problem records without reporting them (no metric), as
   * before it had an observer. `overlap-ignored`: the settle job runs without its overlap policy (as
   * `skip`) while the invariants judge it by the policy: a protocol that does not enforce it.
   */
  readonly variant?: 'skip-is-final' | 'uncounted-sweeper' | 'overlap-ignored';
  /** What the history's stage changes in its handlers and workers (tests: tracing). @default none */
  readonly stage?: StageOptions;
}

/** Run a Lambda-model history on a fresh backend. */
export async function runLambdaHistory(
  spec: HistorySpec,
  backendFactory: BackendFactory,
  options: LambdaRunOptions = {},
): Promise<HistoryOutcome> {
  let stage: Stage | undefined;
  const backend = await backendFactory(() => stage?.time.nowMs ?? 0);
  const start = backend.startMs ?? Date.parse('2026-01-05T00:00:00Z');
  try {
    // Which environment runs which run (its claim's events name it), for branches that wait on it.
    const workerOfRun = new Map<string, string>();
    const observed = (p: Parameters<typeof backend.depsFor>[0]) => ({
      ...p,
      observe: (e: Parameters<typeof p.observe>[0]) => {
        if (!workerOfRun.has(e.runId)) workerOfRun.set(e.runId, p.name);
        p.observe(e);
      },
    });
    const depsFor =
      options.variant === 'skip-is-final'
        ? (p: Parameters<typeof backend.depsFor>[0]) => skipIsFinal(backend.depsFor(observed(p)))
        : (p: Parameters<typeof backend.depsFor>[0]) => backend.depsFor(observed(p));
    const s = new Stage(start, depsFor, options.stage);
    stage = s;
    const ls = spec.lambdaShapes;
    const lambda = new LambdaModel(s, { freezeAfterReturn: ls?.freezeUntilNext ?? false });
    const sleep = (ms: number) => s.time.sleep(ms);
    const provider = new SimProvider({ ...spec.provider, now: () => s.time.nowMs, latencyMs: 40, sleep });
    const sends: SendCall[] = [];
    const current = spawnWorkers(spec, s);
    addStuckHolder(spec.overlap, current);
    if (ls?.timeoutKill) {
      const k = ls.timeoutKill;
      const w = current[k.worker] as Worker;
      let seen = 0;
      // Hangs past the function's timeout: the Lambda model ends the invocation there.
      w.pauses.add({
        name: `hang ${k.ms} ms at ${k.at}`,
        at: k.at,
        when: () => ++seen === 1,
        action: () => w.clock.sleep(k.ms),
      });
    }
    const sweeperWorker = s.worker('sweeper');
    // Catch-up and shard invocations run in their own environment (the sweeper only invokes).
    const asyncWorker = s.worker('async');
    const sweepProblems: SweepProblem[] = [];
    let requestSeq = 0;
    // Shard payloads are async self-invocations: events of the Lambda model on the sweeper-side worker.
    const dispatch: ShardDispatcher = {
      async dispatch(payloads) {
        for (const p of payloads) {
          void lambda.send(
            {
              handler: () => jobsNow().shard,
              scheduledTimeMs: Date.parse(String(p.scheduledTime)),
              requestId: `shard-${requestSeq++}`,
              label: `shard ${String(p.shard)}/${String(p.shards)}`,
              extra: p,
              worker: () => asyncWorker,
            },
            500,
          );
        }
      },
    };
    const failures = { shard1: 0 };
    const jobOptions = {
      provider,
      sleep,
      workMs: spec.workMs,
      slotIndex: (ms: number) => Math.round((ms - start) / SLOT_MS),
      oversized: new Set(spec.oversized ?? []),
      failShard: spec.failShard ?? 0,
      dispatch,
      sends,
      now: () => s.time.nowMs,
      parallelBody: ls?.parallelBody ?? false,
      mixedWrites: ls?.mixedWrites ?? false,
      ...(spec.overlap && {
        overlap: { spec: spec.overlap, startMs: start, enforced: options.variant !== 'overlap-ignored' },
      }),
      ...(ls?.freezeUntilNext && {
        straggler: (runId: string, ms: number) => {
          const name = workerOfRun.get(runId);
          const w = s.workers.find((x) => x.name === name);
          return w ? w.clock.sleep(ms) : s.time.sleep(ms);
        },
      }),
    };
    const deployments = new Map<Deployment, ReturnType<typeof lambdaJobs>>();
    const jobsOf = (d: Deployment) => {
      let j = deployments.get(d);
      if (!j) {
        j = lambdaJobs(d, jobOptions, failures);
        deployments.set(d, j);
      }
      return j;
    };
    const second = spec.redeploy ? redeployed(spec.redeploy.change) : FIRST_DEPLOYMENT;
    const jobsNow = () =>
      jobsOf(spec.redeploy && s.time.nowMs - start >= spec.redeploy.afterMs ? second : FIRST_DEPLOYMENT);
    const shardDefs = new Map<string, number>();
    for (const d of [FIRST_DEPLOYMENT, second]) shardDefs.set(definitionId(jobsOf(d).shard.job), d.shards);
    const delivered: { job: string; scheduledTimeMs: number; handOffMs: number }[] = [];
    let lastMs = 0;
    for (const [n, d] of spec.deliveries.entries()) {
      const atMs = d.slot * SLOT_MS + d.delayMs;
      lastMs = Math.max(lastMs, atMs);
      const scheduledTimeMs = start + d.slot * SLOT_MS;
      const name = d.job === 'report' ? 'ex-report' : d.job === 'settle' ? 'ex-settle' : 'ex-shard';
      delivered.push({ job: name, scheduledTimeMs, handOffMs: scheduledTimeMs });
      void lambda.send(
        {
          handler: () => jobsNow()[d.job],
          scheduledTimeMs,
          requestId: `evt-${d.job}-${d.slot}-${d.manual ? `m${n}` : 'a'}`,
          label: `${d.manual ? 'manual' : 'event'} ${d.job}#${d.slot}`,
          ...(d.manual && {
            extra: { trigger: 'manual', requestedBy: 'explorer', reason: 'history re-run' },
          }),
          worker: () => current[d.worker] as Worker,
        },
        atMs,
      );
    }
    const bf = { startMs: start, deliveries: spec.deliveries, workers: current };
    const send = (e: Omit<LambdaEvent, 'handler'>, ms: number) =>
      lambda.send({ ...e, handler: () => jobsNow().settle }, ms);
    lastMs = Math.max(lastMs, sendBackfill(spec.overlap?.backfill, { ...bf, send }));
    // A late copy: Scheduler retried its hand-off, then it waited in Lambda's queue.
    const lateOf = ls?.late && spec.deliveries[ls.late.delivery % spec.deliveries.length];
    if (ls?.late && lateOf) {
      const scheduledTimeMs = start + lateOf.slot * SLOT_MS;
      const name = lateOf.job === 'report' ? 'ex-report' : lateOf.job === 'settle' ? 'ex-settle' : 'ex-shard';
      delivered.push({ job: name, scheduledTimeMs, handOffMs: scheduledTimeMs + ls.late.schedulerMs });
      lastMs = Math.max(lastMs, lateOf.slot * SLOT_MS + ls.late.schedulerMs + ls.late.lambdaMs);
      void lambda.send(
        {
          handler: () => jobsNow()[lateOf.job],
          scheduledTimeMs,
          requestId: `evt-${lateOf.job}-${lateOf.slot}-a`,
          label: `late copy ${lateOf.job}#${lateOf.slot}`,
          worker: () => current[lateOf.worker] as Worker,
        },
        ls.late.lambdaMs,
        lateOf.slot * SLOT_MS + ls.late.schedulerMs,
      );
    }
    // The sweeper on its schedule, over the history's own range, until Lambda is idle and three sweeps
    // after the last delivery changed nothing. While the only events left wait hours to arrive (a
    // late copy) and nothing ran for longer than the grace and three sweeps (every catch-up, abandoned
    // mark and not-on-schedule record of what ran is done by then), the sweeps between are skipped:
    // they would find nothing to do.
    const sweeps = (async () => {
      let quiet = 0;
      let calm = 0;
      for (let k = 1; k <= 400; k++) {
        const next = lambda.nextArrivalMs();
        const settledLongAgo = s.time.nowMs - lambda.lastActivityMs > 600_000 + 3 * SWEEP_PERIOD_MS;
        const idleUntil =
          calm >= 3 && settledLongAgo && lambda.onlyWaiting && next !== undefined ? next : undefined;
        const gap = idleUntil === undefined ? 0 : Math.floor((idleUntil - s.time.nowMs) / SWEEP_PERIOD_MS);
        await sweeperWorker.clock.sleep(SWEEP_PERIOD_MS * Math.max(1, gap));
        const jobs = jobsNow();
        const report = await sweep(
          {
            leases: sweeperWorker.deps.leases,
            runs: sweeperWorker.deps.runs,
            clock: sweeperWorker.clock,
            log: () => undefined,
            ...(options.variant === 'skip-is-final' && { catchUpUnfinished: false }),
          },
          [jobs.report, jobs.settle, jobs.shard].map((h) => ({
            definition: h.job,
            expression: h.expression,
            startMs: start,
            invoke: async (payload) => {
              void lambda.send(
                {
                  handler: () =>
                    jobsNow()[h === jobs.report ? 'report' : h === jobs.settle ? 'settle' : 'shard'],
                  scheduledTimeMs: Date.parse(String(payload.scheduledTime)),
                  requestId: `catch-up-${requestSeq++}`,
                  label: `catch-up ${h.job.name}${payload.shard === undefined ? '' : ` shard ${String(payload.shard)}`}`,
                  extra: { ...payload, trigger: Trigger.CatchUp },
                  worker: () => asyncWorker,
                },
                500,
              );
            },
          })),
          600_000,
          start - 1,
        ).catch((err: unknown) => {
          if (process.env.EXPLORER_DEBUG) console.error('sweep failed', err);
          return undefined;
        });
        if (report && options.variant !== 'uncounted-sweeper') sweepProblems.push(...report.problems);
        const acted = (report?.decisions ?? []).some((x) => x.action === 'triggered');
        calm = acted ? 0 : calm + 1;
        quiet = !acted && lambda.inFlight === 0 && s.time.nowMs - start > lastMs ? quiet + 1 : 0;
        if (quiet >= 3) break;
      }
    })();
    await s.run();
    await sweeps;
    const names = ['ex-report', 'ex-settle', 'ex-shard'];
    const records = (await Promise.all(names.map((j) => backend.runRecords(j)))).flat();
    return {
      entries: s.recorder.entries,
      results: s.results,
      records,
      provider,
      unsettled: s.unsettled,
      backend: backend.name,
      sends,
      offBudgetWorkers: new Set<string>(),
      ...(spec.overlap && { overlap: spec.overlap.policy }),
      ...(spec.overlap?.since && { overlapSince: true }),
      ...(spec.overlap?.replaceAfterSeconds !== undefined && { overlapReplaceAfter: true }),
      lambda: {
        delivered,
        deadLetters: lambda.deadLetters,
        shardDefs,
        retries: lambda.retries,
        endMs: s.time.nowMs - start,
        sweepProblems,
        timeouts: lambda.timeouts.length,
        thawed: lambda.thawed,
      },
    };
  } finally {
    await backend.drop();
  }
}
