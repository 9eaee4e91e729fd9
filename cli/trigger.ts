/**
 * `cronfence trigger <job> [--slot <id>]` (`JobHandle.trigger`; `--dry-run`: `previewTrigger`): run a job now, through the same path as a manual re-run
 * (`backfill`): the event of trigger `manual` goes to the deployed function (Lambda async Invoke) or,
 * with `--local`, to the handler in this process; then the run record it produced is read back and
 * printed. Default slot: the latest due one (the newest occurrence at or before now). A future slot is
 * bad input (exit 2), and so is a slot before the job's start (`catchUp.since`) without `--before-start`.
 * A paused job records the run `skipped / paused` like any delivery.
 */
import type { Command } from 'commander';
import { iso } from '../operate/input.js';
import type { HandlerSource } from '../operate/registry.js';
import type { RunView } from '../operate/runs.js';
import type { TriggerPreview } from '../operate/trigger.js';
import { intArg } from './args.js';
import { type OperatorFlags, operatorAction, withConnectionOptions, withJobsOption } from './command.js';
import { ExitCode } from './exit-codes.js';
import { CLI_FLAGS } from './flags.js';
import { cell, table } from './output.js';

interface TriggerFlags extends OperatorFlags {
  readonly slot?: string;
  readonly requestedBy?: string;
  readonly reason: string;
  readonly local?: boolean;
  readonly function?: string;
  readonly invokeAws?: boolean;
  readonly wait?: number;
  readonly expect?: string;
  readonly dryRun?: boolean;
  readonly beforeStart?: boolean;
}

/** A run record's error summary as `Name: message`, or `-` when the run recorded none. */
function errorText(error: unknown): string {
  if (typeof error === 'string') return error;
  const e = error as { name?: unknown; message?: unknown } | undefined;
  if (!e || typeof e.message !== 'string') return '-';
  return typeof e.name === 'string' ? `${e.name}: ${e.message}` : e.message;
}

/** A trigger's dry run as `cronfence trigger --dry-run` prints it: the slot, the lease, the command to run it. */
export function previewText(view: TriggerPreview): string {
  const { job, lease } = view;
  return `Dry run: ${job} slot ${view.slot} (scheduled ${view.scheduledTime}); lease version ${lease.version}; ${lease.holder ? `held by run ${lease.holder.runId} (slot ${String(lease.holder.slot)}) until ${iso(lease.holder.leaseUntilMs)}` : 'no live holder'}; nothing invoked.\nRun it: cronfence trigger ${job} --slot ${view.slot} --expect ${lease.version}`;
}

/** Register `trigger`. @param defaults the job registry used without `--jobs`. */
export function registerTrigger(program: Command, defaults: HandlerSource): void {
  const cmd = program
    .command('trigger')
    .argument('<job>', 'job name')
    .description('Run a job now as a manual run (the latest due slot, or --slot) and print its run record')
    .option(
      '--slot <id>',
      "slot to run: a local slot time yyyy-mm-ddTHH:mm in the job's zone, or an ISO instant",
    )
    .option('--requested-by <name>', 'who asks (default: CRONFENCE_OPERATOR, then the OS user)')
    .option('--reason <text>', 'why (recorded on the run record)', 'cronfence trigger')
    .option('--local', "run the job's handler in this process instead of invoking the deployed function")
    .option(
      '--function <name|arn>',
      "deployed function to invoke (default: <stack>-<job> or the stack's JobFunctionNames output with the stack setting, else cronfence-<job>)",
    )
    .option(
      '--invoke-aws',
      'invoke the deployed function in AWS even though records are read from DynamoDB Local',
    )
    .option(
      '--wait <seconds>',
      "how long to wait for the run record (default: the job's timeout + 60)",
      intArg('--wait', 0, 3600),
    )
    .option(
      CLI_FLAGS.beforeStart as string,
      "run a slot before the job's start (catchUp.since), which the scheduler this job replaced may have paid: only after checking it was not",
    )
    .option('--dry-run', "show the slot, the job's lease (holder, until) and its VERSION; invoke nothing")
    .option(
      '--expect <version>',
      'the lease VERSION you were shown (`--dry-run`, pause, resume): refused, nothing invoked, if the lease changed since',
    );
  withJobsOption(withConnectionOptions(cmd)).action(
    operatorAction(defaults, async (ops, flags: TriggerFlags, job: string) => {
      const o = {
        ...(flags.slot !== undefined && { slot: flags.slot }),
        ...(flags.requestedBy !== undefined && { requestedBy: flags.requestedBy }),
        reason: flags.reason,
        ...(flags.local && { local: true }),
        ...(flags.function !== undefined && { functionName: flags.function }),
        ...(flags.invokeAws && { invokeAws: true }),
        ...(flags.wait !== undefined && { waitSeconds: flags.wait }),
        ...(flags.expect !== undefined && { expect: flags.expect }),
        ...(flags.beforeStart && { beforeStart: true }),
      };
      if (flags.dryRun) {
        const view = await ops.job(job).previewTrigger(o);
        return { json: view, text: () => previewText(view) };
      }
      const run = await ops.job(job).trigger(o);
      const { records, errors } = run;
      return {
        json: run.shards === 1 ? (records[0] ?? { error: errors[0] ?? 'pending' }) : records,
        text: () =>
          records.length === 0
            ? `no run record yet for ${job} slot ${run.slot} via ${run.target}${errors.length ? `: ${errors.join('; ')}` : ' (check later with `cronfence runs`)'}`
            : table(records, [
                { header: 'SLOT', cell: (r) => String(r.slot) },
                ...(run.shards > 1 ? [{ header: 'SHARD', cell: (r: RunView) => cell(r.shard) }] : []),
                { header: 'TRIGGER', cell: (r) => String(r.trigger) },
                { header: 'OUTCOME', cell: (r) => String(r.outcome) },
                { header: 'REASON', cell: (r) => cell(r.reason) },
                { header: 'FENCE', cell: (r) => cell(r.fence) },
                { header: 'RUN ID', cell: (r) => cell(r.runId) },
                { header: 'REQUESTED BY', cell: (r) => cell(r.requestedBy) },
                { header: 'ERROR', cell: (r) => errorText(r.error) },
              ]),
        exitCode: run.succeeded ? ExitCode.Ok : ExitCode.Failure,
      };
    }),
  );
}
