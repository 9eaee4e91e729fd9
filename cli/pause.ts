/**
 * `cronfence pause <job> --note TEXT [--until T] [--disable-schedule]` and `cronfence resume <job>`
 * (`JobHandle.pause` / `resume`): a pause is stored on the job's lease item (and its shard leases)
 * and enforced by every claim (docs/operations.md, docs/design.md "Pause"). Resume reports the slots
 * that fell in the pause and what the job's catch-up rule will do with them (the sweeper runs them).
 */
import type { Command } from 'commander';
import { iso } from '../operate/input.js';
import type { PauseView, ResumeView } from '../operate/pause.js';
import type { PausedSlot } from '../operate/paused-slots.js';
import type { HandlerSource } from '../operate/registry.js';
import { instantArg } from './args.js';
import { type OperatorFlags, operatorAction, withConnectionOptions, withJobsOption } from './command.js';
import { ExitCode } from './exit-codes.js';
import { table } from './output.js';

interface PauseFlags extends OperatorFlags {
  readonly note: string;
  readonly by?: string;
  readonly until?: number;
  readonly disableSchedule?: boolean;
  readonly enableSchedule?: boolean;
  readonly scheduleGroup?: string;
  readonly expect?: string;
}

const EXPECT_HELP =
  'the lease VERSION you were shown (`<fence>:<pausedAtMs>`, printed by pause, resume and `trigger --dry-run`): refused, nothing changed, if the lease changed since (default: the version read now)';

/** The holder a pause lets finish, as one line (or nothing). */
function holderLine(view: PauseView): string {
  const h = view.holder;
  return h
    ? `\nrun ${h.runId} (slot ${h.slot}, fence ${h.fence}) holds the lease until ${iso(h.leaseUntilMs)} and finishes its run.`
    : '';
}

function pausedTable(rows: readonly PausedSlot[]): string {
  return table(rows, [
    { header: 'SLOT', cell: (r) => r.slot },
    { header: 'SCHEDULED (UTC)', cell: (r) => r.scheduledTime },
    { header: 'PAUSED SKIPS', cell: (r) => String(r.pausedSkips) },
    { header: 'CATCH-UP', cell: (r) => r.catchUp },
  ]);
}

/** A pause as `cronfence pause` prints it. */
export function pauseText(view: PauseView): string {
  return `paused ${view.job} (${view.leases} lease item${view.leases > 1 ? 's' : ''}) by ${view.by} at ${view.pausedAt}${view.until ? ` until ${view.until}` : ''}: "${view.note}"; lease version ${view.version}${view.schedule ? `\nschedule: ${view.schedule}` : ''}${holderLine(view)}\nA run holding the lease now finishes; every later delivery is recorded skipped/paused.`;
}

/** A resumed pause as `cronfence resume` prints it. */
export function resumeText(view: Extract<ResumeView, { resumed: true }>): string {
  const slots = view.skippedSlots;
  return [
    `resumed ${view.job}: paused by ${view.pause.by} at ${view.pause.pausedAt} ("${view.pause.note}")${view.pause.inForce ? '' : ' (its --until had passed)'}; lease version ${view.version}`,
    slots.length === 0
      ? 'no occurrence fell in the pause'
      : `${slots.length} occurrence(s) fell in the pause; catch-up ${view.catchUp} decides (the sweeper runs them):\n${pausedTable(slots)}`,
    ...(view.schedule ? [`schedule: ${view.schedule}`] : []),
  ].join('\n');
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
    .option('--schedule-group <name>', 'schedule group of the job (default: found by ListSchedules)')
    .option('--expect <version>', EXPECT_HELP);
  withJobsOption(withConnectionOptions(p)).action(
    operatorAction(defaults, async (ops, flags: PauseFlags, job: string) => {
      const view = await ops.job(job).pause({
        note: flags.note,
        ...(flags.by !== undefined && { by: flags.by }),
        ...(flags.until !== undefined && { untilMs: flags.until }),
        ...(flags.disableSchedule && { disableSchedule: true }),
        ...(flags.scheduleGroup !== undefined && { scheduleGroup: flags.scheduleGroup }),
        ...(flags.expect !== undefined && { expect: flags.expect }),
      });
      return { json: view, text: () => pauseText(view) };
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
    .option('--by <name>', 'who resumes, kept on the lease (default: CRONFENCE_OPERATOR, then the OS user)')
    .option('--expect <version>', EXPECT_HELP);
  withJobsOption(withConnectionOptions(r)).action(
    operatorAction(defaults, async (ops, flags: Omit<PauseFlags, 'note'>, job: string) => {
      const view = await ops.job(job).resume({
        ...(flags.by !== undefined && { by: flags.by }),
        ...(flags.enableSchedule && { enableSchedule: true }),
        ...(flags.scheduleGroup !== undefined && { scheduleGroup: flags.scheduleGroup }),
        ...(flags.expect !== undefined && { expect: flags.expect }),
      });
      if (!view.resumed)
        return { refused: `job ${job} is not paused: nothing changed`, exitCode: ExitCode.Failure };
      return { json: view, text: () => resumeText(view) };
    }),
  );
}
