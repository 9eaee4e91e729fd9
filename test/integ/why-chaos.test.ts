/**
 * `why` after `npm start -- --chaos 7` (integ: DynamoDB Local): the example app's jobs played over three
 * days under the Scheduler emulator with duplicates, late retries, the sweeper and seed 7's faults (the
 * same calls `npm start` makes: harness/local/run-local.ts), then every occurrence of both jobs explained.
 * Each line is asserted exactly against the run records of its slot, read back independently.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exampleApp } from '../../functions/example-app.js';
import { createChaos } from '../../harness/faults/chaos.js';
import { ControlledClock } from '../../harness/faults/clock.js';
import { emulate } from '../../harness/local/emulate.js';
import { Outcome } from '../../lib/core/outcomes.js';
import { createDeps } from '../../lib/runtime/deps.js';
import { createDocumentClient } from '../../lib/store/client.js';
import { explainJob, type WhyReport } from '../../operate/why/explain.js';
import { formatLine } from '../../operate/why/render.js';
import { type LocalStack, localStack } from '../helpers/local-stack.js';

const FROM = Date.parse('2026-11-17T00:00:00Z');
const TO = Date.parse('2026-11-19T23:59:59Z');
let stack: LocalStack;
const reports = new Map<string, WhyReport>();
const print = () => undefined;

beforeAll(async () => {
  stack = await localStack();
  await exampleApp.start?.(print);
  const chaos = createChaos(7);
  const runDoc = createDocumentClient({ endpoint: stack.endpoint });
  chaos.injector.attach(runDoc);
  const clock = new ControlledClock();
  const deps = createDeps({ doc: runDoc, tableName: stack.tableName, clock, pausePoint: chaos.pausePoint });
  await emulate(
    exampleApp.handlers.map((h) => h.withDeps(() => deps)),
    deps,
    { fromMs: FROM - 1, toMs: TO, concurrentCopies: 2, lateCopies: 1, clock },
    { delivery: print, sweep: print },
  );
  runDoc.destroy();
  for (const h of exampleApp.handlers)
    reports.set(
      h.job.name,
      await explainJob({
        doc: stack.doc,
        tableName: stack.tableName,
        job: { name: h.job.name, definition: h.job },
        fromMs: FROM,
        toMs: TO,
        nowMs: Date.now(),
        aws: { skipped: 'DynamoDB Local' },
      }),
    );
}, 240_000);

afterAll(async () => {
  await exampleApp.stop?.(print);
});

/** The line `why` must print for a slot, from its run records. */
function expectedLine(slot: string, records: Record<string, unknown>[]): string {
  const ok = records.filter((r) => r.outcome === Outcome.Succeeded);
  expect(ok).toHaveLength(1);
  const r = ok[0] as Record<string, unknown>;
  const ran = `run ${r.runId} succeeded in ${r.durationMs}ms, fence ${r.fence}`;
  const count = new Map<string, number>();
  for (const o of records.filter((x) => x !== r)) {
    const k = o.outcome === Outcome.Succeeded ? 'succeeded' : `${o.outcome}/${o.reason}`;
    count.set(k, (count.get(k) ?? 0) + 1);
  }
  const others = [...count].sort(([a], [b]) => a.localeCompare(b)).map(([k, v]) => `${v} ${k}`);
  const verdict =
    r.trigger === 'catch-up'
      ? `caught up by the sweeper (${r.requestReason}): ${ran}`
      : `ran: ${ran} (${r.trigger})${others.length > 0 ? `; also ${others.join(', ')}` : ''}`;
  return `${slot.padEnd(20)}  ${(r.trigger === 'catch-up' ? 'caught-up' : 'succeeded').padEnd(20)}  ${verdict}`;
}

describe('why after npm start -- --chaos 7', () => {
  it.each([
    ['daily-report', ['2026-11-17T02:30', '2026-11-18T02:30', '2026-11-19T02:30']],
    ['merchant-settlement', ['2026-11-18T01:00', '2026-11-19T01:00', '2026-11-20T01:00']],
  ])('explains every occurrence of %s in the three days, each line exactly', async (job, slots) => {
    const report = reports.get(job) as WhyReport;
    expect(report.lines.map((l) => l.slot)).toEqual(slots);
    const records = await stack.runRecords(job);
    expect(report.lines.map(formatLine)).toEqual(
      slots.map((s) =>
        expectedLine(
          s,
          records.filter((r) => r.slot === s),
        ),
      ),
    );
  });
});
