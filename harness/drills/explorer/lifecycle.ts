/**
 * Lifecycle shapes of the listed model (shapes.ts `lifecycle`): the settle job renamed with its id
 * carried over, first deployed after an older scheduler paid the earlier slots, deleted and re-added,
 * or its library table restored from a backup. Decides which settle job each delivery reaches, plays
 * the events in virtual time, and ends with a sweep with catch-up `all` over the whole history.
 */
import { Trigger } from '../../../lib/core/outcomes.js';
import { instantSlotId } from '../../../lib/core/schedule/slot.js';
import type { JobHandler } from '../../../lib/runtime/define-job.js';
import { sweep } from '../../../lib/runtime/sweeper.js';
import { Keys } from '../../../lib/store/schema.js';
import type { Stage, Worker } from '../stage.js';
import type { HistoryBackend } from './backends.js';
import { ROWS_PER_SLOT, SLOT_MINUTES } from './jobs.js';
import type { SimProvider } from './provider.js';
import type { ShapeSpec, shapedJobs } from './shapes.js';

const SLOT_MS = SLOT_MINUTES * 60_000;

/** The fence headroom the explorer's restore procedure adds (`markRestored`). */
const FENCE_HEADROOM = 1_000_000;

/** How a history's settle deliveries and its end are shaped by its lifecycle event. */
export interface LifecyclePlan {
  /** The settle job a delivery of slot `k` reaches; `undefined`: none is deployed then (not delivered). */
  settleFor(k: number): JobHandler | undefined;
  /** The settle job deployed at the end (the final deliveries and the closing sweep use it). */
  readonly finalSettle: JobHandler;
  /** When the event's last action happens, ms into the history (the history's end phase comes after it). */
  readonly lastActionMs: number;
  /** Play the event's own actions (the older scheduler's payments, the backup and restore). */
  play(s: Stage): void;
  /** Sweep once `atMs` into the history with the final settle job's catch-up `all`, invoking on `sweeper`. */
  closingSweep(s: Stage, sweeper: Worker, atMs: number): void;
  /**
   * Of the runs' accepted claims and record writes, the runs with one between the backup and the
   * restore: their records went with the table the restore replaced.
   */
  readonly lostWithRestore: (writes: readonly { runId: string; atMs: number }[]) => Set<string>;
}

/** The plan of `lifecycle` (absent: every delivery reaches the base settle job, nothing else happens). */
export function lifecyclePlan(
  lifecycle: ShapeSpec['lifecycle'],
  jobs: ReturnType<typeof shapedJobs>,
  provider: SimProvider,
  backend: HistoryBackend,
  start: number,
): LifecyclePlan | undefined {
  if (!lifecycle) return undefined;
  const { kind, atSlot, span } = lifecycle;
  const backupAtMs = start + atSlot * SLOT_MS;
  const restoreAtMs = backupAtMs + span * SLOT_MS;
  let settleFor: (k: number) => JobHandler | undefined;
  let finalSettle: JobHandler;
  let play: (s: Stage) => void = () => undefined;
  if (kind === 'rename') {
    const renamed = jobs.settleAs({ name: 'ex-settle-v2', id: jobs.settle.job.name });
    settleFor = (k) => (k >= atSlot ? renamed : jobs.settle);
    finalSettle = renamed;
  } else if (kind === 'first-deploy') {
    // Deployed between slot atSlot - 1 and atSlot, declaring that instant as its catch-up floor.
    const deployed = jobs.settleAs({ sinceMs: backupAtMs - 60_000 });
    settleFor = (k) => (k >= atSlot ? deployed : undefined);
    finalSettle = deployed;
    play = (s) => {
      // The older scheduler paid every slot before the deploy, under the same business keys.
      for (let k = 0; k < atSlot; k++) {
        const id = instantSlotId(start + k * SLOT_MS);
        s.time.schedule(k * SLOT_MS, () => {
          for (let i = 0; i < ROWS_PER_SLOT; i++)
            void provider
              .send(`pay#${id}#${i}`, { id: `${id}#${i}`, amountCents: 100 + i })
              .catch(() => undefined);
        });
      }
    };
  } else if (kind === 're-add') {
    const readded = jobs.settleAs({});
    settleFor = (k) => (k < atSlot ? jobs.settle : k < atSlot + span ? undefined : readded);
    finalSettle = readded;
  } else {
    settleFor = () => jobs.settle;
    finalSettle = jobs.settleAs({});
    play = (s) => {
      let restore: ReturnType<NonNullable<HistoryBackend['backupLibrary']>> | undefined;
      s.time.schedule(atSlot * SLOT_MS, () => {
        restore = backend.backupLibrary?.();
      });
      s.time.schedule((atSlot + span) * SLOT_MS, () =>
        restore?.({
          restoredAtMs: backupAtMs,
          fenceHeadroom: FENCE_HEADROOM,
          // Every lease of the jobs, as `markRestored` marks them: the resharded report's shard leases too.
          leases: [
            Keys.lease(jobs.settle.job.name).pk,
            Keys.lease(jobs.report.job.name).pk,
            ...Array.from(
              { length: jobs.resharded.job.shards },
              (_, i) => Keys.lease(jobs.report.job.name, i).pk,
            ),
          ],
        }),
      );
    };
  }
  const restored = kind === 'restore' && backend.backupLibrary !== undefined;
  return {
    settleFor,
    finalSettle,
    lastActionMs: kind === 'restore' ? restoreAtMs - start : 0,
    play,
    closingSweep: (s, sweeper, atMs) => closingSweep(s, sweeper, finalSettle, start, atMs),
    lostWithRestore: (claims) =>
      restored
        ? new Set(claims.filter((c) => c.atMs >= backupAtMs && c.atMs <= restoreAtMs).map((c) => c.runId))
        : new Set(),
  };
}

function closingSweep(s: Stage, sweeper: Worker, settle: JobHandler, start: number, atMs: number): void {
  s.time.schedule(atMs, () => {
    void sweep(
      { leases: sweeper.deps.leases, runs: sweeper.deps.runs, clock: sweeper.clock, log: () => undefined },
      [
        {
          definition: settle.job,
          expression: settle.expression,
          startMs: start,
          invoke: async (payload) => {
            void s.deliver(
              {
                worker: sweeper,
                handler: settle,
                job: settle.job.name,
                scheduledTimeMs: Date.parse(String(payload.scheduledTime)),
                label: `catch-up ${settle.job.name}`,
                extra: { ...payload, trigger: Trigger.CatchUp },
              },
              500,
            );
          },
        },
      ],
      600_000,
      start - 1,
    ).catch(() => undefined);
  });
}
