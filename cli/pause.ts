/**
 * `cronfence pause <job> --note TEXT [--until T] [--disable-schedule]` and `cronfence resume <job>`:
 * a pause is stored on the job's lease item (and its shard leases) and enforced by every claim
 * (docs/operations.md, docs/design.md "Pause"). Resume reports the slots that fell in the pause and
 * what the job's catch-up rule will do with them (the sweeper runs them, not this command).
 */
import type { Command } from 'commander';
import { MAX_PAUSED_BY_CHARS, pauseInForce } from '../lib/core/pause.js';
import type { JobHandler } from '../lib/runtime/define-job.js';
import { DEFAULT_CATCH_UP } from '../lib/runtime/sweeper.js';
import { DynamoPauseStore } from '../lib/store/pause-store.js';
import { DynamoRunStore } from '../lib/store/run-store.js';
import { instantArg } from './args.js';
import { type ConnectionFlags, connect, withConnectionOptions } from './connection.js';
import { action, ExitCode, iso, operatorValue, out, table, toJson } from './output.js';
import { type PausedSlot, pausedSlots } from './paused-slots.js';
import { type HandlerSource, loadRegistry, requireJob, withJobsOption } from './registry.js';
import { setScheduleState } from './schedule-state.js';

interface PauseFlags extends ConnectionFlags {
  readonly note: string;
  readonly by?: string;
  readonly until?: number;
  readonly disableSchedule?: boolean;
  readonly enableSchedule?: boolean;
  readonly scheduleGroup?: string;
  readonly jobs?: string;
}

async function scheduleState(
  conn: Awaited<ReturnType<typeof connect>>,
  job: string,
  state: 'ENABLED' | 'DISABLED',
  group: string | undefined,
): Promise<string> {
  if (conn.mode === 'local')
    return 'local: no EventBridge Scheduler schedule (the emulator delivers; the lease refuses them)';
  return setScheduleState(conn.clientConfig, job, state, group);
}

function pausedTable(rows: readonly PausedSlot[]): string {
  return table(rows, [
    { header: 'SLOT', cell: (r) => r.slot },
    { header: 'SCHEDULED (UTC)', cell: (r) => r.scheduledTime },
    { header: 'PAUSED SKIPS', cell: (r) => String(r.pausedSkips) },
    { header: 'CATCH-UP', cell: (r) => r.catchUp },
  ]);
}

/** Register `pause` and `resume`. @param defaults the job registry used without `--jobs`. */
export function registerPause(program: Command, defaults: HandlerSource): void {
  const p = program
    .command('pause')
    .argument('<job>', 'job name')
    .description('Pause a job at its lease: every delivery is recorded skipped/paused until resume')
    .requiredOption('--note <text>', 'why (stored on the lease item, 1-200 characters)')
    .option('--by <name>', 'who pauses (default: CRONFENCE_OPERATOR, then the OS user)')
    .option(
      '--until <instant>',
      'the pause ends by itself at this instant (ISO-8601 with a zone)',
      instantArg('--until'),
    )
    .option(
      '--disable-schedule',
      "also set the job's Scheduler schedule DISABLED (AWS; needs scheduler:UpdateSchedule)",
    )
    .option('--schedule-group <name>', 'schedule group of the job (default: found by ListSchedules)');
  withJobsOption(withConnectionOptions(p)).action(
    action(async (job: string, flags: PauseFlags) => {
      const handler = requireJob(await loadRegistry(flags.jobs, defaults), job);
      // Checked here, naming where the name came from (--by, CRONFENCE_OPERATOR, the OS user): exit 2,
      // nothing written (the store checks it again, for library callers, as `--by`).
      const by = operatorValue('--by', flags.by, MAX_PAUSED_BY_CHARS);
      const conn = await connect(flags);
      try {
        const store = new DynamoPauseStore(conn.doc, conn.tableName);
        const nowMs = Date.now();
        const pause = await store.pause({
          job,
          shards: handler.job.shards,
          by,
          note: flags.note,
          ...(flags.until !== undefined && { untilMs: flags.until }),
          nowMs,
        });
        const schedule = flags.disableSchedule
          ? await scheduleState(conn, job, 'DISABLED', flags.scheduleGroup)
          : undefined;
        const view = {
          job,
          paused: true,
          by: pause.by,
          pausedAt: iso(pause.atMs),
          note: pause.note,
          ...(pause.untilMs !== undefined && { until: iso(pause.untilMs) }),
          leases: handler.job.shards > 1 ? handler.job.shards + 1 : 1,
          ...(schedule !== undefined && { schedule }),
        };
        if (flags.json) out(toJson(view));
        else
          out(
            `paused ${job} (${view.leases} lease item${view.leases > 1 ? 's' : ''}) by ${view.by} at ${view.pausedAt}${view.until ? ` until ${view.until}` : ''}: "${view.note}"${schedule ? `\nschedule: ${schedule}` : ''}\nA run holding the lease now finishes; every later delivery is recorded skipped/paused.`,
          );
        return ExitCode.Ok;
      } finally {
        conn.close();
      }
    }),
  );

  const r = program
    .command('resume')
    .argument('<job>', 'job name')
    .description("Clear a job's pause and list the slots it skipped (left to the job's catch-up rule)")
    .option(
      '--enable-schedule',
      "also set the job's Scheduler schedule ENABLED (AWS; needs scheduler:UpdateSchedule)",
    )
    .option('--schedule-group <name>', 'schedule group of the job (default: found by ListSchedules)')
    .option('--by <name>', 'who resumes, kept on the lease (default: CRONFENCE_OPERATOR, then the OS user)');
  withJobsOption(withConnectionOptions(r)).action(
    action(async (job: string, flags: Omit<PauseFlags, 'note'>) => {
      const by = operatorValue('--by', flags.by, MAX_PAUSED_BY_CHARS);
      const handler: JobHandler = requireJob(await loadRegistry(flags.jobs, defaults), job);
      const conn = await connect(flags);
      try {
        const store = new DynamoPauseStore(conn.doc, conn.tableName);
        const nowMs = Date.now();
        const item = await store.lease(job);
        const pausedAtMs = item?.pausedAtMs;
        if (pausedAtMs === undefined) {
          process.stderr.write(`cronfence: job ${job} is not paused: nothing changed\n`);
          return ExitCode.Failure;
        }
        const inForce = pauseInForce(item, nowMs);
        await store.resume({ job, shards: handler.job.shards, pausedAtMs, by, nowMs });
        const endMs = Math.min(nowMs, item?.pausedUntilMs ?? nowMs);
        const slots = await pausedSlots(handler, new DynamoRunStore(conn.doc, conn.tableName), {
          fromMs: pausedAtMs,
          toMs: endMs,
          nowMs,
        });
        const schedule = flags.enableSchedule
          ? await scheduleState(conn, job, 'ENABLED', flags.scheduleGroup)
          : undefined;
        const catchUp = handler.job.catchUp ?? DEFAULT_CATCH_UP;
        const view = {
          job,
          resumed: true,
          pause: {
            by: String(item?.pausedBy),
            pausedAt: iso(pausedAtMs),
            note: String(item?.pauseNote ?? ''),
            ...(item?.pausedUntilMs !== undefined && { until: iso(item.pausedUntilMs) }),
            ...(item?.pausedRuns !== undefined && { runIds: [...item.pausedRuns] }),
            inForce: inForce !== undefined,
          },
          catchUp: catchUp.mode,
          skippedSlots: slots,
          ...(schedule !== undefined && { schedule }),
        };
        if (flags.json) out(toJson(view));
        else {
          out(
            `resumed ${job}: paused by ${view.pause.by} at ${view.pause.pausedAt} ("${view.pause.note}")${inForce ? '' : ' (its --until had passed)'}`,
          );
          out(
            slots.length === 0
              ? 'no occurrence fell in the pause'
              : `${slots.length} occurrence(s) fell in the pause; catch-up ${catchUp.mode} decides (the sweeper runs them):\n${pausedTable(slots)}`,
          );
          if (schedule) out(`schedule: ${schedule}`);
        }
        return ExitCode.Ok;
      } finally {
        conn.close();
      }
    }),
  );
}
