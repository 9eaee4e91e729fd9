/**
 * Run one history: workers with skewed clocks and injected faults, the explorer's jobs delivered as
 * the spec says, then a final sweep (one fault-free retry per job and slot, after every lease ran
 * out) so killed holders get their `abandoned` mark. Returns everything the invariants read.
 */
import type { OverlapPolicyName } from '../../../lib/core/overlap.js';
import type { DeliveryResult } from '../../local/scheduler-emulator.js';
import type { Recorded } from '../../report/recording.js';
import { Stage, type Worker } from '../stage.js';
import type { BackendFactory, HistoryBackend } from './backends.js';
import { ecsTask } from './ecs-shape.js';
import type { HistorySpec } from './history.js';
import { applyFaults, spawnWorkers } from './history-faults.js';
import { SLOT_MINUTES } from './jobs.js';
import { lifecyclePlan } from './lifecycle.js';
import { type OperatorEntry, operatorSpanMs, scheduleOperators } from './operators.js';
import { SimProvider } from './provider.js';
import { type LambdaOutcome, type LambdaRunOptions, runLambdaHistory } from './run-lambda-history.js';
import { type SendCall, shapedJobs } from './shapes.js';

/**
 * True time every in-memory history starts at (a fixed instant: the same spec replays the same
 * history). DynamoDB histories start near the real time instead (see `HistoryBackend.startMs`).
 */
export const HISTORY_START_MS = Date.parse('2026-01-05T00:00:00Z');

const SLOT_MS = SLOT_MINUTES * 60_000;

/** What a history produced. */
export interface HistoryOutcome {
  readonly entries: readonly Recorded[];
  readonly results: readonly DeliveryResult[];
  readonly records: readonly Record<string, unknown>[];
  readonly provider: SimProvider;
  /** Deliveries that never settled (killed). */
  readonly unsettled: number;
  /** Lambda model: the occurrences delivered and the events that ended in the dead-letter queue. */
  readonly lambda?: LambdaOutcome;
  readonly backend: HistoryBackend['name'];
  /** Every provider call, with its run and true time. */
  readonly sends: readonly SendCall[];
  /** Workers whose clock left the skew budget (frozen-clock, skewed-lookup shapes). */
  readonly offBudgetWorkers: ReadonlySet<string>;
  /** What operators did (operator-race shape). */
  readonly operators?: readonly OperatorEntry[];
  /**
   * `restore` shape: runs that claimed or wrote their record between the backup and the restore (their
   * records went with the table the restore replaced).
   */
  readonly lostWithRestore?: ReadonlySet<string>;
  /** Lambda model: the settle job's overlap policy (overlap-shape.ts), when the history has one. */
  readonly overlap?: OverlapPolicyName;
  /** Lambda model: the overlap settle job declares `catchUp.since` (overlap-shape.ts `since`). */
  readonly overlapSince?: boolean;
  /** Lambda model: the overlap settle job replaces only holders older than `replaceAfterSeconds`. */
  readonly overlapReplaceAfter?: boolean;
}

/** Run `spec` on a fresh backend. */
export async function runHistory(
  spec: HistorySpec,
  backendFactory: BackendFactory,
  options: LambdaRunOptions = {},
): Promise<HistoryOutcome> {
  if (spec.lambda) return runLambdaHistory(spec, backendFactory, options);
  let stage: Stage | undefined;
  const backend = await backendFactory(() => stage?.time.nowMs ?? HISTORY_START_MS);
  const start = backend.startMs ?? HISTORY_START_MS;
  try {
    const s = new Stage(start, (p) => backend.depsFor(p), options.stage);
    stage = s;
    const sleep = (ms: number) => s.time.sleep(ms);
    const shapes = spec.shapes;
    const race = shapes?.operatorRace;
    const provider = new SimProvider({
      ...spec.provider,
      ...(shapes?.lookupOnly && { idempotencyKeys: false, lookup: true }),
      ...(shapes?.keyRetentionMs !== undefined && { keyRetentionMs: shapes.keyRetentionMs }),
      // operators matter where the runs cannot reconcile alone: no keys, no lookup
      ...(race && {
        idempotencyKeys: false,
        lookup: false,
        dropResponses: [...new Set([...spec.provider.dropResponses, ...race.dropResponses])],
        failBeforeExecution: race.failBeforeExecution,
      }),
      now: () => s.time.nowMs,
      latencyMs: race?.latencyMs ?? 40,
      sleep,
    });
    const sends: SendCall[] = [];
    const jobs = shapedJobs(shapes, { provider, sleep, workMs: spec.workMs, now: () => s.time.nowMs, sends });
    const life = lifecyclePlan(shapes?.lifecycle, jobs, provider, backend, start);
    const settleFor = (k: number) => (life ? life.settleFor(k) : jobs.settle);
    life?.play(s);
    const offBudgetWorkers = new Set<string>();
    const current = spawnWorkers(spec, s, offBudgetWorkers);
    let last = 0;
    const used = new Set<string>();
    for (const [n, d] of spec.deliveries.entries()) {
      const reshard = d.job === 'report' && shapes?.reshardFrom !== undefined && n >= shapes.reshardFrom;
      const handler = reshard ? jobs.resharded : d.job === 'report' ? jobs.report : settleFor(d.slot);
      // A lifecycle event left no settle job deployed for this slot: nothing receives the delivery.
      if (!handler) continue;
      const atMs = d.slot * SLOT_MS + d.delayMs;
      last = Math.max(last, atMs);
      used.add(`${d.job}|${d.slot}`);
      let settled = false;
      const task =
        shapes?.ecsTask &&
        ecsTask(
          shapes.ecsTask,
          n,
          spec.deliveries.length,
          s,
          current[d.worker] as Worker,
          atMs,
          () => settled,
        );
      // A stopped task runs in a process of its own, in its environment: with that environment's clock
      // (off the budget when that clock is, so I4 leaves it to the fences there too) and faults (a
      // partition or a pause reaches the task as well; a kill ends only the task).
      if (task && task.worker !== current[d.worker]) {
        if (offBudgetWorkers.has((current[d.worker] as Worker).name)) offBudgetWorkers.add(task.worker.name);
        // (the faults are the first environment's: one replaced after a kill has none, as in spawnWorkers)
        if (!(current[d.worker] as Worker).name.includes('.'))
          applyFaults(spec, d.worker, task.worker, () => undefined);
      }
      void s
        .deliver(
          {
            worker: task ? task.worker : (current[d.worker] as Worker),
            ...(task && { context: task.context }),
            handler,
            job: handler.job.name,
            scheduledTimeMs: start + d.slot * SLOT_MS,
            attemptNumber: d.attempt,
            label: `${d.manual ? 'manual' : d.attempt > 1 ? 'retry' : 'on-time'} ${d.job}#${d.slot}`,
            ...((d.manual || reshard) && {
              extra: {
                ...(d.manual && { trigger: 'manual', requestedBy: 'explorer', reason: 'history re-run' }),
                ...(reshard && { shard: 0 }),
              },
            }),
          },
          atMs,
          undefined,
          // A task keeps its own process; a Lambda delivery takes the worker's current environment.
          () => (task ? task.worker : (current[d.worker] as Worker)),
        )
        .then(() => {
          settled = true;
        });
    }
    const operators: OperatorEntry[] = [];
    if (race) {
      const slots = [...new Set(spec.deliveries.filter((d) => d.job === 'settle').map((d) => d.slot))].sort(
        (x, y) => x - y,
      );
      const desk = s.worker('operator');
      const effects = desk.deps.effects?.(jobs.settle.job.name);
      if (effects) {
        scheduleOperators(race, {
          stage: s,
          worker: desk,
          effects,
          pauses: backend.pausesFor(desk),
          provider,
          settle: jobs.settle,
          startMs: start,
          slots,
          ...(life && { catchUp: life.finalSettle.job.catchUp }),
          log: operators,
        });
        last = Math.max(last, operatorSpanMs(race, Math.max(0, ...slots)));
      }
    }
    // The end phase (sweep, final claims) comes after the lifecycle event: the next claims after a restore
    // are what mark the holders the restored lease items still show running.
    last = Math.max(last, life?.lastActionMs ?? 0);
    const sweeper = s.worker('sweeper');
    for (const key of [...used].sort()) {
      const [job, slot] = key.split('|') as [string, string];
      const handler = job === 'report' ? jobs.report : (life?.finalSettle ?? jobs.settle);
      void s.deliver(
        {
          worker: sweeper,
          handler,
          job: handler.job.name,
          scheduledTimeMs: start + Number(slot) * SLOT_MS,
          attemptNumber: 5,
          label: `sweep ${key}`,
        },
        last + 20 * 60_000,
      );
    }
    // The job's next claim is what marks a dead holder abandoned; a slot already done is skipped without
    // claiming, so end with one manual re-run per job (it claims past the done set), as the next
    // scheduled slot would in production.
    for (const job of ['report', 'settle'] as const) {
      // Slots some deployed job received (a lifecycle event can leave none deployed for a slot).
      const slots = spec.deliveries
        .filter((d) => d.job === job && used.has(`${d.job}|${d.slot}`))
        .map((d) => d.slot);
      if (slots.length === 0) continue;
      const handler = job === 'settle' ? (life?.finalSettle ?? jobs.settle) : jobs[job];
      const finalClaim = { trigger: 'manual', requestedBy: 'explorer', reason: 'final claim' };
      void s.deliver(
        {
          worker: sweeper,
          handler,
          job: handler.job.name,
          scheduledTimeMs: start + Math.max(...slots) * SLOT_MS,
          label: `final claim ${job}`,
          extra: finalClaim,
        },
        last + 40 * 60_000,
      );
      if (job === 'report' && spec.shapes?.reshardFrom !== undefined)
        void s.deliver(
          {
            worker: sweeper,
            handler: jobs.resharded,
            job: handler.job.name,
            scheduledTimeMs: start + Math.max(...slots) * SLOT_MS,
            label: 'final claim report shard 0',
            extra: { ...finalClaim, shard: 0 },
          },
          last + 41 * 60_000,
        );
    }
    life?.closingSweep(s, sweeper, last + 30 * 60_000);
    await s.run();
    const records = [
      ...(await backend.runRecords(jobs.report.job.name)),
      ...(await backend.runRecords(jobs.settle.job.name)),
    ];
    return {
      entries: s.recorder.entries,
      results: s.results,
      records,
      provider,
      unsettled: s.unsettled,
      backend: backend.name,
      sends,
      offBudgetWorkers,
      ...(race && { operators }),
      ...(life && {
        lostWithRestore: life.lostWithRestore(
          s.recorder.entries.flatMap((e) =>
            e.kind === 'result' &&
            (e.op === 'claim' || e.op === 'run-record') &&
            (e.result === 'ok' || e.result === 'lost') &&
            e.runId
              ? [{ runId: e.runId, atMs: e.atMs }]
              : [],
          ),
        ),
      }),
    };
  } finally {
    await backend.drop();
  }
}
