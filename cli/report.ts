/**
 * `cronfence report <job> --from <date> --to <date> [--out report.html]`: the drills' timeline picture
 * (harness/report/timeline.ts) of a job's REAL history — lease holders per slot with fences, refused
 * stale writes, effect transitions, skips with reasons, pauses — built from the run records, the lease
 * item and the effect records in DynamoDB (Local or AWS), written as ONE self-contained HTML file (no
 * script, no network). Reads: one Query of the job's run records, one GetItem of its lease, one Scan of
 * the library table for the job's effect records (filtered; the table has no per-job effect index).
 */
import { writeFileSync } from 'node:fs';
import type { Command } from 'commander';
import { recordingFromRecords } from '../harness/report/from-records.js';
import { renderTimeline } from '../harness/report/timeline.js';
import { queryItems, scanItems } from '../lib/store/client.js';
import { DynamoPauseStore } from '../lib/store/pause-store.js';
import { Attr, Keys } from '../lib/store/schema.js';
import { type DayOrInstant, dayOrInstantArg, writableFile } from './args.js';
import { type ConnectionFlags, connect, withConnectionOptions } from './connection.js';
import { action, ExitCode, iso, out, toJson, usage } from './output.js';
import { type HandlerSource, loadRegistry, requireJob, withJobsOption } from './registry.js';

interface ReportFlags extends ConnectionFlags {
  readonly from: DayOrInstant;
  readonly to: DayOrInstant;
  readonly out?: string;
  readonly jobs?: string;
}

const DAY_MS = 86_400_000;

/** Register `report`. @param defaults the job registry used without `--jobs`. */
export function registerReport(program: Command, defaults: HandlerSource): void {
  const cmd = program
    .command('report')
    .argument('<job>', 'job name')
    .description(
      "Draw a job's real runs (leases, fences, skips, pauses, effects) as one self-contained HTML file",
    )
    .requiredOption('--from <date>', 'first day (yyyy-mm-dd, UTC) or instant', dayOrInstantArg('--from'))
    .requiredOption('--to <date>', 'last day (inclusive) or instant', dayOrInstantArg('--to'))
    .option(
      '--out <file>',
      'where to write the page, in an existing writable directory (default: report-<job>.html)',
    );
  withJobsOption(withConnectionOptions(cmd)).action(
    action(async (job: string, flags: ReportFlags) => {
      // Where the page goes is checked first: a bad --out must not cost a table read.
      const file = writableFile('--out', flags.out ?? `report-${job}.html`);
      const handler = requireJob(await loadRegistry(flags.jobs, defaults), job);
      const fromMs = flags.from.firstMs;
      const toMs = flags.to.lastMs;
      if (toMs < fromMs) throw usage('--to', iso(toMs), `is before --from ${iso(fromMs)}`);
      if (toMs - fromMs > 92 * DAY_MS)
        throw usage(
          '--from/--to',
          `${iso(fromMs)}..${iso(toMs)}`,
          'spans more than 92 days: draw a shorter range',
        );
      const conn = await connect(flags);
      try {
        // Slot ids begin with a local or UTC date: a day either side covers every zone.
        const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
        const inRange = (ms: number) => ms >= fromMs - DAY_MS && ms <= toMs + DAY_MS;
        const runs = (
          await queryItems(conn.doc, {
            TableName: conn.tableName,
            KeyConditionExpression: '#pk = :pk AND #sk BETWEEN :from AND :to',
            ExpressionAttributeNames: { '#pk': Attr.pk, '#sk': Attr.sk },
            ExpressionAttributeValues: {
              ':pk': Keys.lease(job).pk,
              ':from': `RUN#${day(fromMs - DAY_MS)}`,
              ':to': `RUN#${day(toMs + DAY_MS)}\uffff`,
            },
          })
        ).filter((r) => {
          const at = r.scheduledTime ? Date.parse(String(r.scheduledTime)) : Number(r.startedAtMs);
          return at >= fromMs && at <= toMs;
        });
        const lease = await new DynamoPauseStore(conn.doc, conn.tableName).lease(job);
        const effects = (
          await scanItems(conn.doc, {
            TableName: conn.tableName,
            FilterExpression: 'begins_with(#pk, :prefix)',
            ExpressionAttributeNames: { '#pk': Attr.pk },
            ExpressionAttributeValues: { ':prefix': `EFFECT#${job}#` },
          })
        ).filter((e) => inRange(Number(e.createdAtMs)) && runs.some((r) => r.runId === e.runId));
        const title = `cronfence report: ${job}`;
        const recording = recordingFromRecords({
          definition: handler.job,
          runs,
          effects,
          lease,
          title,
          meta: {
            job,
            schedule: `${handler.job.schedule} (${handler.job.timeZone})`,
            range: `${iso(fromMs)} .. ${iso(toMs)}`,
            source: conn.mode === 'local' ? `DynamoDB Local ${conn.endpoint}` : `AWS table ${conn.tableName}`,
            'run records': runs.length,
            effects: effects.length,
          },
        });
        writeFileSync(file, renderTimeline(recording));
        const view = {
          job,
          file,
          runRecords: runs.length,
          effects: effects.length,
          paused: lease?.pausedAtMs !== undefined,
        };
        if (flags.json) out(toJson(view));
        else out(`wrote ${file}: ${runs.length} run record(s), ${effects.length} effect(s)`);
        return ExitCode.Ok;
      } finally {
        conn.close();
      }
    }),
  );
}
