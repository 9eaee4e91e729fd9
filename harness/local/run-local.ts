/**
 * `npm start`: DynamoDB Local (or DYNAMODB_ENDPOINT) + tables from the shared schemas + the Scheduler
 * emulator firing the app's jobs with duplicate deliveries, then invariants read back from DynamoDB.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { dstWarnings } from '../../lib/core/schedule/dst-warnings.js';
import { enumerateSlots } from '../../lib/core/schedule/enumerate.js';
import type { Slot } from '../../lib/core/schedule/slot.js';
import { InvalidArgumentError } from '../../lib/errors.js';
import type { JobHandler } from '../../lib/runtime/define-job.js';
import { createDeps } from '../../lib/runtime/deps.js';
import type { RunSummary } from '../../lib/runtime/run-session.js';
import { createDocumentClient } from '../../lib/store/client.js';
import { libraryTable, type TableSchema } from '../../lib/store/schema.js';
import { createChaos } from '../faults/chaos.js';
import { ControlledClock } from '../faults/clock.js';
import { type DynamoDbLocal, startDynamoDbLocal } from './dynamodb-local.js';
import { emulate } from './emulate.js';
import { removeLocalState, writeLocalState } from './local-state.js';
import type { DeliveryResult } from './scheduler-emulator.js';
import { ensureTables } from './tables.js';
import { type Check, verifyRunRecordsAndLeases } from './verify.js';

/** An application the emulator can run: handlers, its tables, and its business invariants. */
export interface LocalApp {
  readonly handlers: readonly JobHandler[];
  readonly tables: readonly TableSchema[];
  /**
   * Start the app's local services (e.g. the payment service) after the tables exist; may set
   * environment variables the handlers read. @default none
   */
  start?(print: (line: string) => void): Promise<void>;
  /** Stop what `start` started; always called when `start` was. @default none */
  stop?(print: (line: string) => void): Promise<void>;
  /** Business checks (one result per key), given the slots that ran per job. */
  verify(
    doc: DynamoDBDocumentClient,
    slotsByJob: ReadonlyMap<string, readonly Slot[]>,
    summaries: readonly RunSummary[],
  ): Promise<Check[]>;
}

/** Ranges larger than this many occurrences need `--yes`. */
export const MAX_OCCURRENCES_WITHOUT_YES = 1_000;

/** Options of {@link runLocal}. */
export interface RunLocalOptions {
  /** Start of the emulated range (exclusive), epoch ms. @default `toMs` − 3 days */
  readonly fromMs?: number;
  /** End of the emulated range (inclusive), epoch ms. @default now, or `fromMs` + 3 days when only `fromMs` is given */
  readonly toMs?: number;
  /** At most this many occurrences per job. @default 3 (unlimited with an explicit range) */
  readonly maxPerJob?: number;
  /** Concurrent duplicate copies per occurrence. @default 2 */
  readonly concurrentCopies?: number;
  /** Late Scheduler retries per occurrence. @default 1 */
  readonly lateCopies?: number;
  /** Where lines go. @default console.log */
  readonly print?: (line: string) => void;
  /** Keep DynamoDB Local (and `.cronfence/local.json`) up after the run until SIGINT/SIGTERM. @default false */
  readonly hold?: boolean;
  /** Allow more than {@link MAX_OCCURRENCES_WITHOUT_YES} occurrences. @default false */
  readonly yes?: boolean;
  /**
   * Inject a seeded mix of faults (harness/faults/chaos.ts) into the runs' DynamoDB requests and pause
   * points; the verification still reads the truth. @default none
   */
  readonly chaos?: { readonly seed: number };
}

function line(r: DeliveryResult): string {
  const s = r.summary;
  const cols = [
    (s?.job ?? r.delivery.job).padEnd(20),
    (s?.slot ?? '?').padEnd(17),
    (s?.trigger ?? '?').padEnd(9),
    (s?.outcome ?? 'error').padEnd(10),
    (s?.reason ?? '-').padEnd(18),
    `fence=${s?.fence ?? '-'}`.padEnd(9),
    `${s?.durationMs ?? '?'}ms`.padStart(6),
    ` (${r.delivery.label}${r.error ? `: ${r.error.name}: ${r.error.message}` : ''})`,
  ];
  return cols.join(' ');
}

/**
 * Run the app locally. Starts (and always stops) DynamoDB Local unless DYNAMODB_ENDPOINT is set.
 * @returns true when every invariant holds.
 * @throws InvalidArgumentError for an inverted or empty range.
 */
export async function runLocal(app: LocalApp, options: RunLocalOptions = {}): Promise<boolean> {
  const print = options.print ?? ((l: string) => console.log(l));
  const DAYS_3 = 3 * 86_400_000;
  const explicitRange = options.fromMs !== undefined || options.toMs !== undefined;
  const toMs = options.toMs ?? (options.fromMs !== undefined ? options.fromMs + DAYS_3 : Date.now());
  const fromMs = options.fromMs ?? toMs - DAYS_3;
  if (!(toMs > fromMs)) {
    throw new InvalidArgumentError(
      '--to',
      new Date(toMs).toISOString(),
      `must be after --from (${new Date(fromMs).toISOString()})`,
    );
  }
  const occurrences = app.handlers.reduce(
    (n, h) => n + enumerateSlots({ ...h.job, schedule: h.expression, startMs: fromMs }, fromMs, toMs).length,
    0,
  );
  if (occurrences > MAX_OCCURRENCES_WITHOUT_YES && !options.yes) {
    throw new InvalidArgumentError(
      '--from/--to',
      `${new Date(fromMs).toISOString()}..${new Date(toMs).toISOString()}`,
      `covers ${occurrences} occurrences (more than ${MAX_OCCURRENCES_WITHOUT_YES}); add --yes to play them all`,
    );
  }
  let local: DynamoDbLocal | undefined;
  let statePath: string | undefined;
  let stopping = false;
  let started = false;
  let releaseHold: (() => void) | undefined;
  const onSignal = (sig: NodeJS.Signals) => {
    if (stopping) return; // a second Ctrl-C (or the wrapper forwarding it) must not skip the clean-up
    stopping = true;
    if (releaseHold) {
      print(`\n${sig}: stopping`);
      releaseHold(); // the normal clean-up below runs
      return;
    }
    print(`\n${sig}: stopping DynamoDB Local`);
    if (statePath) removeLocalState(statePath);
    void (local?.stop() ?? Promise.resolve()).then(() => process.exit(130));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    let endpoint = process.env.DYNAMODB_ENDPOINT;
    if (!endpoint) {
      local = await startDynamoDbLocal();
      endpoint = local.endpoint;
      print(`DynamoDB Local started at ${endpoint} (pid ${local.pid}, in memory)`);
    } else {
      print(`Using DYNAMODB_ENDPOINT=${endpoint}`);
    }
    process.env.DYNAMODB_ENDPOINT = endpoint;
    process.env[libraryTable.envVar] ??= libraryTable.defaultName;
    const doc = createDocumentClient({ endpoint });
    const tables = [libraryTable, ...app.tables].map((schema) => ({
      schema,
      tableName: process.env[schema.envVar] ?? schema.defaultName,
    }));
    for (const t of tables) process.env[t.schema.envVar] = t.tableName;
    await ensureTables(doc, tables);
    print(`Tables: ${tables.map((t) => t.tableName).join(', ')}`);
    // Lets the `cronfence` CLI find this stack without flags while we run (harness/local/local-state).
    const written = writeLocalState({
      endpoint,
      region: process.env.AWS_REGION ?? 'us-east-1',
      tables: Object.fromEntries(tables.map((t) => [t.schema.envVar, t.tableName])),
      pid: process.pid,
      startedAt: new Date().toISOString(),
    });
    if (typeof written === 'string') statePath = written;
    else
      print(
        `Another npm start (pid ${written.ownedBy}) owns .cronfence/local.json: the CLI keeps talking to that one`,
      );
    started = true;
    await app.start?.(print);

    const clock = new ControlledClock();
    const chaos = options.chaos ? createChaos(options.chaos.seed) : undefined;
    const runDoc = chaos ? createDocumentClient({ endpoint }) : doc;
    chaos?.injector.attach(runDoc);
    if (chaos)
      print(`Chaos: seeded fault injection (seed ${chaos.seed}) on the runs' requests and pause points`);
    const deps = createDeps({
      doc: runDoc,
      tableName: process.env[libraryTable.envVar],
      clock,
      ...(chaos && { pausePoint: chaos.pausePoint }),
    });
    const handlers = app.handlers.map((h) => h.withDeps(() => deps));
    for (const h of app.handlers) {
      const warnings = dstWarnings({ ...h.job, schedule: h.expression }, fromMs);
      if (warnings.length)
        print(
          `DST (${h.job.name}, ${h.job.timeZone}, next 3 years): ${warnings.map((w) => `${w.date} ${w.kind}`).join('; ')}`,
        );
    }
    print(
      `Emulating EventBridge Scheduler from ${new Date(fromMs).toISOString()} to ${new Date(toMs).toISOString()}, with the sweeper`,
    );
    print(
      `${'job'.padEnd(20)} ${'slot'.padEnd(17)} ${'trigger'.padEnd(9)} ${'outcome'.padEnd(10)} ${'reason'.padEnd(18)} ${'fence'.padEnd(9)} ${'took'.padStart(6)}`,
    );
    const { summaries, slotsByJob } = await emulate(
      handlers,
      deps,
      {
        fromMs,
        toMs,
        ...(!explicitRange && { maxPerJob: options.maxPerJob ?? 3 }),
        concurrentCopies: options.concurrentCopies ?? 2,
        lateCopies: options.lateCopies ?? 1,
        clock,
      },
      {
        delivery: (r) => print(line(r)),
        sweep: (d) =>
          print(`${'sweeper'.padEnd(20)} ${d.slot.padEnd(17)} ${d.job} ${d.action} (${d.reason})`),
      },
    );
    const checks = [
      ...(await verifyRunRecordsAndLeases(
        doc,
        deps.tableName,
        app.handlers.map((h) => h.job.name),
        summaries,
      )),
      ...(await app.verify(doc, slotsByJob, summaries)),
    ];
    if (chaos) {
      const injected = Object.entries(chaos.counts()).sort();
      print(`\nChaos (seed ${chaos.seed}): ${injected.reduce((n, [, v]) => n + v, 0)} faults injected`);
      print(`  ${injected.map(([k, v]) => `${k}=${v}`).join(' ') || 'none'}`);
      if (runDoc !== doc) runDoc.destroy();
    }
    print('\nVerification (read back from DynamoDB):');
    for (const c of checks) print(`  ${c.ok ? 'PASS' : 'FAIL'}  ${c.name}: ${c.detail}`);
    const ok = checks.every((c) => c.ok);
    print(ok ? '\nAll invariants hold.' : '\nSome invariants FAILED.');
    doc.destroy();
    if (options.hold) {
      print(
        `\nHolding DynamoDB Local at ${endpoint} for the cronfence CLI (see docs/operations.md); Ctrl-C stops it.`,
      );
      const keepAlive = setInterval(() => undefined, 3_600_000);
      await new Promise<void>((resolve) => {
        releaseHold = resolve;
      });
      clearInterval(keepAlive);
    }
    return ok;
  } finally {
    if (statePath) removeLocalState(statePath);
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    if (started) await app.stop?.(print);
    if (local) {
      await local.stop();
      print(`DynamoDB Local (pid ${local.pid}) stopped`);
    }
  }
}
