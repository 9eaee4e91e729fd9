/**
 * Run drills against the configured DynamoDB and print the table: drill, injected, expected,
 * observed, PASS/FAIL, with the run records (runId, outcome, reason) that prove each line.
 */

import { randomUUID } from 'node:crypto';
import { table } from '../../cli/output.js';
import { enumerateSlots } from '../../lib/core/schedule/enumerate.js';
import type { Slot } from '../../lib/core/schedule/slot.js';
import { InvalidArgumentError } from '../../lib/errors.js';
import type { JobHandler } from '../../lib/runtime/define-job.js';
import type { RunSummary } from '../../lib/runtime/run-session.js';
import type { LocalApp } from '../local/run-local.js';
import { check, evidenceOf, faultsByKind, formatEvidence } from './checks.js';
import { createDrillTables, type DrillTarget } from './dynamo-env.js';
import { Stage, type StageOptions } from './stage.js';
import type { Drill, DrillContext, DrillReport } from './types.js';

/** Options of {@link runDrills}. */
export interface RunDrillsOptions {
  readonly app: LocalApp;
  readonly drills: readonly Drill[];
  readonly target: DrillTarget;
  /** Job names by role. @default fenced 'daily-report', insertOnce 'merchant-settlement' */
  readonly roles?: { readonly fenced?: string; readonly insertOnce?: string };
  /** True time the drills start at, epoch ms. @default now */
  readonly startMs?: number;
  /** Where lines go. @default console.log */
  readonly print?: (line: string) => void;
  /** What each drill's stage changes in its handlers and workers (tests: tracing). @default none */
  readonly stage?: StageOptions;
}

function roleHandler(app: LocalApp, name: string): JobHandler {
  const h = app.handlers.find((x) => x.job.name === name);
  if (!h)
    throw new InvalidArgumentError(
      'job',
      name,
      `is not a job of this app (${app.handlers.map((x) => x.job.name).join(', ')})`,
    );
  return h;
}

function latestSlot(h: JobHandler, atMs: number): Slot {
  const slots = enumerateSlots(
    { ...h.job, schedule: h.expression, startMs: atMs - 8 * 86_400_000 },
    atMs - 8 * 86_400_000,
    atMs,
  );
  const last = slots.at(-1);
  if (!last)
    throw new InvalidArgumentError('job', h.job.name, 'has no occurrence in the 8 days before the drill');
  return last;
}

/** Run one drill on fresh tables. Never throws for a drill's own failure: it becomes a FAIL line. */
export async function runDrill(drill: Drill, o: RunDrillsOptions): Promise<DrillReport> {
  const started = Date.now();
  const startMs = Math.floor((o.startMs ?? Date.now()) / 1000) * 1000;
  const tables = await createDrillTables(o.target, o.app.tables);
  const stage = new Stage(startMs, (parts) => tables.depsFor(parts), o.stage);
  const fenced = roleHandler(o.app, o.roles?.fenced ?? 'daily-report');
  const insertOnce = roleHandler(o.app, o.roles?.insertOnce ?? 'merchant-settlement');
  const ctx: DrillContext = {
    app: o.app,
    fenced,
    insertOnce,
    stage,
    tables,
    slot: (h) => latestSlot(h, startMs),
    send: (worker, handler, d) =>
      stage.deliver(
        {
          worker,
          handler,
          job: handler.job.name,
          scheduledTimeMs: latestSlot(handler, startMs).scheduledTimeMs,
          attemptNumber: d.attempt ?? 1,
          awsRequestId: d.requestId ?? randomUUID(),
          label: d.label,
          ...(d.extra && { extra: d.extra }),
        },
        d.delayMs ?? 0,
      ),
    runIdsOf: (worker) => [
      ...new Set(
        stage.recorder.entries.flatMap((e) =>
          e.kind === 'runtime' &&
          e.worker === worker.name &&
          (e.event.type === 'claim-won' || e.event.type === 'claim-lost')
            ? [e.event.runId]
            : [],
        ),
      ),
    ],
    businessItems: async () =>
      (await Promise.all([...tables.names.values()].slice(1).map((t) => tables.scan(t)))).flat(),
    verifyApp: async (handlers) => {
      const summaries: RunSummary[] = stage.results.flatMap((r) => (r.summary ? [r.summary] : []));
      const known = new Set(summaries.map((s) => s.runId));
      for (const h of handlers) {
        for (const r of await tables.runRecords(h.job.name)) {
          if (known.has(String(r.runId))) continue;
          summaries.push({
            job: h.job.name,
            slot: String(r.slot),
            scheduledTime: String(r.scheduledTime ?? ''),
            trigger: 'schedule',
            runId: String(r.runId),
            outcome: r.outcome as RunSummary['outcome'],
            ...(r.fence !== undefined && { fence: Number(r.fence) }),
            durationMs: 0,
          });
        }
      }
      const slotsByJob = new Map(handlers.map((h) => [h.job.name, [latestSlot(h, startMs)]]));
      return o.app.verify(tables.doc, slotsByJob, summaries);
    },
  };
  try {
    const obs = await drill.run(ctx).catch((err: Error) => ({
      observed: `drill crashed: ${err.name}: ${err.message}`,
      checks: [
        check(
          'drill ran to the end',
          false,
          String(err.stack ?? err)
            .split('\n')
            .slice(0, 3)
            .join(' | '),
        ),
      ],
      jobs: [fenced, insertOnce],
    }));
    const records = (await Promise.all(obs.jobs.map((h) => tables.runRecords(h.job.name)))).flat();
    const recording = stage.recorder.recording(`drill ${drill.name}`, {
      drill: drill.name,
      injected: drill.injected,
      expected: drill.expected,
    });
    return {
      name: drill.name,
      injected: drill.injected,
      expected: drill.expected,
      observed: obs.observed,
      pass: obs.checks.length > 0 && obs.checks.every((c) => c.ok),
      checks: obs.checks,
      evidence: evidenceOf(records),
      records,
      faults: faultsByKind(stage.recorder.entries),
      recording,
      durationMs: Date.now() - started,
    };
  } finally {
    await tables.drop();
  }
}

/** Run the drills in order, printing each line as it finishes. @returns the reports */
export async function runDrills(o: RunDrillsOptions): Promise<DrillReport[]> {
  const print = o.print ?? ((l: string) => console.log(l));
  const reports: DrillReport[] = [];
  for (const d of o.drills) {
    const r = await runDrill(d, o);
    reports.push(r);
    for (const l of formatReport(r)) print(l);
  }
  return reports;
}

/** The table lines of one drill: the row, then its failed checks and evidence indented. */
export function formatReport(r: DrillReport): string[] {
  const lines = [
    `${r.pass ? 'PASS' : 'FAIL'}  ${r.name}`,
    `      injected: ${r.injected}`,
    `      expected: ${r.expected}`,
    `      observed: ${r.observed}`,
  ];
  for (const c of r.checks) if (!c.ok) lines.push(`      FAILED CHECK ${c.name}: ${c.detail}`);
  for (const e of r.evidence) lines.push(`      record ${formatEvidence(e)}`);
  return lines;
}

/** A compact summary table: one line per drill. */
export function summaryTable(reports: readonly DrillReport[]): string[] {
  const faults = (r: DrillReport) =>
    Object.entries(r.faults)
      .map(([k, v]) => `${k}=${v}`)
      .join(' ') || '-';
  return table(reports, [
    { header: 'drill', cell: (r) => r.name },
    { header: 'result', cell: (r) => (r.pass ? 'PASS' : 'FAIL') },
    { header: 'checks', cell: (r) => `${r.checks.filter((c) => c.ok).length}/${r.checks.length}` },
    { header: 'faults injected', cell: faults, max: Number.POSITIVE_INFINITY },
  ]).split('\n');
}
