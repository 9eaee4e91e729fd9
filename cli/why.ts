/**
 * `cronfence why <job> [--slot S | --from A --to B]`: the thin shell over operate/why. Parses, connects,
 * calls {@link explainJob}, renders. Read-only: exit 0 when the table was read (whatever it found), 2 for
 * bad input, 1 when the table could not be read. The job's code is used when the registry has it; without
 * it the deployed schedule (AWS) gives the occurrences.
 */
import { CloudWatchClient } from '@aws-sdk/client-cloudwatch';
import { LambdaClient } from '@aws-sdk/client-lambda';
import { SchedulerClient } from '@aws-sdk/client-scheduler';
import { SQSClient } from '@aws-sdk/client-sqs';
import type { Command } from 'commander';
import { jobKeyOf } from '../lib/core/job-definition.js';
import { type ConnectionOptions, connect } from '../operate/connection.js';
import { usage } from '../operate/input.js';
import { type HandlerSource, loadRegistry } from '../operate/registry.js';
import { explainJob, type WhyJob } from '../operate/why/explain.js';
import { formatReport } from '../operate/why/render.js';
import { type DayOrInstant, dayOrInstantArg, jobNameArg, slotArg } from './args.js';
import { withConnectionOptions, withJobsOption } from './command.js';
import { ExitCode } from './exit-codes.js';
import { withFlags } from './flags.js';
import { action, out, toJson } from './output.js';

interface WhyFlags extends ConnectionOptions {
  readonly json?: boolean;
  readonly slot?: string;
  readonly from?: DayOrInstant;
  readonly to?: DayOrInstant;
  readonly scheduleGroup?: string;
  readonly jobs?: string;
}

const DAY_MS = 86_400_000;
/** The most a local slot id is away from its UTC reading, ms. */
const ZONE_SPAN_MS = 26 * 3_600_000;

/**
 * The range a `--slot` id or prefix covers, UTC-read and widened by a zone's span (lines are then
 * filtered to the ids starting with it).
 */
export function slotRange(slot: string): { fromMs: number; toMs: number } {
  const base = slot.endsWith('Z') ? slot : `${slot}${'0000-01-01T00:00'.slice(slot.length)}Z`;
  const firstMs = Date.parse(base.length === 17 ? `${base.slice(0, 16)}:00Z` : base);
  const span =
    slot.length <= 4
      ? 366 * DAY_MS
      : slot.length <= 7
        ? 31 * DAY_MS
        : slot.length <= 10
          ? DAY_MS
          : slot.length <= 13
            ? 3_600_000
            : 60_000;
  return { fromMs: firstMs - ZONE_SPAN_MS, toMs: firstMs + span + ZONE_SPAN_MS };
}

/** Register `why`. @param defaults the job registry used without `--jobs`. */
export function registerWhy(program: Command, defaults: HandlerSource): void {
  const cmd = program
    .command('why')
    .argument('<job>', 'job name', jobNameArg('<job>'))
    .description(
      'Explain every expected occurrence of a job: what ran, what was skipped and why, and for an occurrence with no record what Scheduler, CloudWatch and the dead-letter queues say',
    )
    .option('--slot <slot>', 'one slot id, or a prefix of one (e.g. 2026-03-28)', slotArg('--slot'))
    .option(
      '--from <day|instant>',
      'first occurrence (UTC day or ISO instant; default: 24 h ago)',
      dayOrInstantArg('--from'),
    )
    .option(
      '--to <day|instant>',
      'last occurrence (UTC day or ISO instant; default: now)',
      dayOrInstantArg('--to'),
    )
    .option('--schedule-group <name>', "the schedule's group (default: found with scheduler:ListSchedules)");
  withJobsOption(withConnectionOptions(cmd)).action(
    action(async (job: string, flags: WhyFlags) => {
      if (flags.slot !== undefined && (flags.from || flags.to))
        throw usage('--slot', flags.slot, 'cannot be combined with --from/--to');
      const nowMs = Date.now();
      const range =
        flags.slot !== undefined
          ? slotRange(flags.slot)
          : { fromMs: flags.from?.firstMs ?? nowMs - DAY_MS, toMs: flags.to?.lastMs ?? nowMs };
      if (range.toMs < range.fromMs)
        throw usage(
          '--to',
          new Date(range.toMs).toISOString(),
          `is before --from (${new Date(range.fromMs).toISOString()})`,
        );
      // The job's code when the registry has it; without it, what the table and AWS say.
      const handler = await loadRegistry(flags.jobs, defaults)
        .then((r) => r.jobs.get(job))
        .catch(() => undefined);
      const whyJob: WhyJob = handler
        ? { name: job, key: jobKeyOf(handler.job), definition: handler.job }
        : { name: job };
      const conn = await connect(flags);
      const config = { ...conn.clientConfig, maxAttempts: 3 };
      const clients =
        conn.mode === 'aws'
          ? {
              scheduler: new SchedulerClient(config),
              cloudwatch: new CloudWatchClient(config),
              sqs: new SQSClient(config),
              lambda: new LambdaClient(config),
            }
          : undefined;
      try {
        const report = await explainJob({
          doc: conn.doc,
          tableName: conn.tableName,
          job: whyJob,
          ...range,
          nowMs,
          ...(flags.slot !== undefined && { slotPrefix: flags.slot }),
          aws: clients
            ? {
                clients,
                target: {
                  scheduleName: job,
                  functionName: conn.functionName(job),
                  ...(flags.scheduleGroup !== undefined && { scheduleGroup: flags.scheduleGroup }),
                },
              }
            : {
                skipped: `the table is on DynamoDB Local (${conn.source}): Scheduler, CloudWatch and SQS are AWS's`,
              },
        });
        const shown = { ...report, jobCode: handler ? 'loaded' : 'not loaded' };
        out(flags.json ? toJson(shown) : withFlags(formatReport(shown)));
        return ExitCode.Ok;
      } finally {
        for (const c of Object.values(clients ?? {})) c.destroy();
        conn.close();
      }
    }),
  );
}
