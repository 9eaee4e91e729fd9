/**
 * `cronfence report <job> --from <date> --to <date> [--out report.html]`: the drills' timeline picture
 * (harness/report/timeline.ts) of a job's REAL history — lease holders per slot with fences, refused
 * stale writes, effect transitions, skips with reasons, pauses — built from the run records, the lease
 * item and the effect records in DynamoDB (Local or AWS; `JobHandle.history`), written as ONE
 * self-contained HTML file (no script, no network).
 */
import { writeFileSync } from 'node:fs';
import type { Command } from 'commander';
import { recordingFromRecords } from '../harness/report/from-records.js';
import { renderTimeline } from '../harness/report/timeline.js';
import type { JobDefinition } from '../lib/core/job-definition.js';
import { overlapLabel, overlapOfJob } from '../lib/core/overlap-check.js';
import type { ScheduleExpression } from '../lib/core/schedule/expression.js';
import { iso } from '../operate/input.js';
import type { HandlerSource } from '../operate/registry.js';
import { type DayOrInstant, dayOrInstantArg, writableFile } from './args.js';
import { type OperatorFlags, operatorAction, withConnectionOptions, withJobsOption } from './command.js';

interface ReportFlags extends OperatorFlags {
  readonly from: DayOrInstant;
  readonly to: DayOrInstant;
  readonly out?: string;
}

/**
 * The report page's header: the job, its schedule and zone, its overlap policy (the token `cronfence
 * jobs` shows: `buffer-all(4)`, `replace(>300s)`, ...), the range, where the records came from, and
 * how many were drawn.
 * @param o.nowMs epoch ms the schedule's period (the after-previous default bound) is measured from.
 * @throws InvalidJobDefinitionError for an `overlap` option `defineJob` would have refused.
 */
export function reportMeta(
  handler: { readonly job: JobDefinition; readonly expression: ScheduleExpression },
  o: {
    readonly fromMs: number;
    readonly toMs: number;
    readonly nowMs: number;
    readonly source: string;
    readonly runRecords: number;
    readonly effects: number;
  },
): Record<string, string | number> {
  const d = handler.job;
  return {
    job: d.name,
    schedule: `${d.schedule} (${d.timeZone})`,
    overlap: overlapLabel(overlapOfJob(d, handler.expression, o.nowMs)),
    range: `${iso(o.fromMs)} .. ${iso(o.toMs)}`,
    source: o.source,
    'run records': o.runRecords,
    effects: o.effects,
  };
}

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
    operatorAction(defaults, async (ops, flags: ReportFlags, job: string) => {
      // Where the page goes is checked first: a bad --out must not cost a table read.
      const file = writableFile('--out', flags.out ?? `report-${job}.html`);
      const handle = ops.job(job);
      const handler = await handle.definition();
      const definition = handler.job;
      const fromMs = flags.from.firstMs;
      const toMs = flags.to.lastMs;
      const { runs, effects, lease } = await handle.history(fromMs, toMs);
      const conn = await ops.connection();
      const recording = recordingFromRecords({
        definition,
        runs,
        effects,
        lease,
        title: `cronfence report: ${job}`,
        meta: reportMeta(handler, {
          fromMs,
          toMs,
          nowMs: ops.now(),
          source: conn.mode === 'local' ? `DynamoDB Local ${conn.endpoint}` : `AWS table ${conn.tableName}`,
          runRecords: runs.length,
          effects: effects.length,
        }),
      });
      writeFileSync(file, renderTimeline(recording));
      const view = {
        job,
        file,
        runRecords: runs.length,
        effects: effects.length,
        paused: lease?.pausedAtMs !== undefined,
      };
      return {
        json: view,
        text: () => `wrote ${file}: ${runs.length} run record(s), ${effects.length} effect(s)`,
      };
    }),
  );
}
