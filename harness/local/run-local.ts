/**
 * `npm start`: DynamoDB Local (or DYNAMODB_ENDPOINT) + tables from the shared schemas + the Scheduler
 * emulator firing the app's jobs with duplicate deliveries, then invariants read back from DynamoDB.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { tableRow } from '../../cli/output.js';
import { dstWarnings } from '../../lib/core/schedule/dst-warnings.js';
import { enumerateSlots } from '../../lib/core/schedule/enumerate.js';
import type { Slot } from '../../lib/core/schedule/slot.js';
import { InvalidArgumentError } from '../../lib/errors.js';
import type { JobHandler } from '../../lib/runtime/define-job.js';
import { createDeps, type RuntimeDeps } from '../../lib/runtime/deps.js';
import type { RunSummary } from '../../lib/runtime/run-session.js';
import {
  createDocumentClient,
  DYNAMODB_ENDPOINT_ENV,
  dynamoEndpointFromEnv,
  nameUnreachableEndpoint,
} from '../../lib/store/client.js';
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
   * environment variables the handlers read, and returns those the `cronfence` CLI must set to run
   * the handlers the same way (`backfill --local`; kept in `.cronfence/local.json`). @default none
   */
  start?(print: (line: string) => void): Promise<Readonly<Record<string, string>> | undefined>;
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

/** The default range: this many days before `toMs`. */
export const DEFAULT_RANGE_DAYS = 3;

const DAY_MS = 86_400_000;

/** Options of {@link runLocal}. */
export interface RunLocalOptions {
  /** First instant of the emulated range (inclusive), epoch ms. @default `toMs` − {@link DEFAULT_RANGE_DAYS} days */
  readonly fromMs?: number;
  /** Last instant of the emulated range (inclusive), epoch ms; not after now. @default now */
  readonly toMs?: number;
  /** Concurrent duplicate copies per occurrence. @default 2 */
  readonly concurrentCopies?: number;
  /** Late Scheduler retries per occurrence. @default 1 */
  readonly lateCopies?: number;
  /** Where lines go. @default console.log */
  readonly print?: (line: string) => void;
  /** Keep DynamoDB Local (and `.cronfence/local.json`) up after the run until SIGINT/SIGTERM/SIGHUP. @default false */
  readonly hold?: boolean;
  /** Allow more than {@link MAX_OCCURRENCES_WITHOUT_YES} occurrences. @default false */
  readonly yes?: boolean;
  /**
   * Inject a seeded mix of faults (harness/faults/chaos.ts) into the runs' DynamoDB requests and pause
   * points; the verification still reads the truth. @default none
   */
  readonly chaos?: { readonly seed: number };
}

/** The range to play, both ends inclusive, epoch ms. */
interface Range {
  readonly fromMs: number;
  readonly toMs: number;
}

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * Resolve and check the range: defaults, order, and the occurrence count.
 * @throws InvalidArgumentError for a `--from` or `--to` after `nowMs`, an inverted range, or too many
 *   occurrences without `yes`.
 */
export function resolveRange(app: LocalApp, options: RunLocalOptions, nowMs: number): Range {
  const toMs = options.toMs ?? nowMs;
  const fromMs = options.fromMs ?? toMs - DEFAULT_RANGE_DAYS * DAY_MS;
  // Like backfill: the emulator replays past occurrences; a future one has not happened.
  const future = `is in the future (now is ${iso(nowMs)}); npm start plays past occurrences only (backfill refuses the same)`;
  if (options.fromMs !== undefined && fromMs > nowMs)
    throw new InvalidArgumentError('--from', iso(fromMs), future);
  if (toMs > nowMs) throw new InvalidArgumentError('--to', iso(toMs), future);
  if (toMs < fromMs) throw new InvalidArgumentError('--to', iso(toMs), `is before --from (${iso(fromMs)})`);
  const occurrences = app.handlers.reduce((n, h) => n + slotsIn(h, { fromMs, toMs }).length, 0);
  if (occurrences > MAX_OCCURRENCES_WITHOUT_YES && !options.yes) {
    throw new InvalidArgumentError(
      '--from/--to',
      `${iso(fromMs)}..${iso(toMs)}`,
      `covers ${occurrences} occurrences (more than ${MAX_OCCURRENCES_WITHOUT_YES}); add --yes to play them all`,
    );
  }
  return { fromMs, toMs };
}

function slotsIn(h: JobHandler, r: Range): Slot[] {
  return enumerateSlots({ ...h.job, schedule: h.expression, startMs: r.fromMs }, r.fromMs - 1, r.toMs);
}

/** The delivery lines' columns and widths (printed as the runs finish, so the widths are fixed). */
const COLUMNS = [
  ['job', 20],
  ['slot', 16],
  ['trigger', 9],
  ['outcome', 9],
  ['reason', 17],
  ['fence', 8],
  ['took', 6],
] as const;
const WIDTHS = COLUMNS.map(([, w]) => w);

function row(values: readonly string[], note = ''): string {
  return `${tableRow(values, WIDTHS)}${note}`;
}

function line(r: DeliveryResult): string {
  const s = r.summary;
  const error = r.error ? `: ${r.error.name}: ${r.error.message}` : '';
  return row(
    [
      s?.job ?? r.delivery.job,
      s?.slot ?? '?',
      s?.trigger ?? '?',
      s?.outcome ?? 'error',
      s?.reason ?? '-',
      `fence=${s?.fence ?? '-'}`,
      `${s?.durationMs ?? '?'}ms`.padStart(6),
    ],
    ` (${r.delivery.label}${error})`,
  );
}

/** What {@link openStack} set up; `close` undoes it (state file, app services, DynamoDB Local). */
interface LocalStack {
  readonly endpoint: string;
  readonly doc: DynamoDBDocumentClient;
  close(): Promise<void>;
}

/** DynamoDB Local (or DYNAMODB_ENDPOINT), the tables, the app's services and the state file. */
async function openStack(app: LocalApp, print: (l: string) => void): Promise<LocalStack> {
  let local: DynamoDbLocal | undefined;
  let statePath: string | undefined;
  let started = false;
  const close = async () => {
    if (statePath) removeLocalState(statePath);
    if (started) await app.stop?.(print);
    if (local) {
      await local.stop();
      print(`DynamoDB Local (pid ${local.pid}) stopped`);
    }
  };
  try {
    // Unset: start DynamoDB Local; set but empty or not a URL: refused, naming the variable.
    let endpoint = dynamoEndpointFromEnv();
    const configured = endpoint !== undefined;
    if (endpoint === undefined) {
      local = await startDynamoDbLocal();
      endpoint = local.endpoint;
      print(`DynamoDB Local started at ${endpoint} (pid ${local.pid}, in memory)`);
    } else print(`Using ${DYNAMODB_ENDPOINT_ENV}=${endpoint}`);
    process.env[DYNAMODB_ENDPOINT_ENV] = endpoint;
    const doc = createDocumentClient({ endpoint });
    if (configured)
      nameUnreachableEndpoint(
        doc,
        DYNAMODB_ENDPOINT_ENV,
        endpoint,
        `start DynamoDB Local there, or unset ${DYNAMODB_ENDPOINT_ENV} (npm start then starts one)`,
      );
    const tables = [libraryTable, ...app.tables].map((schema) => ({
      schema,
      tableName: process.env[schema.envVar] || schema.defaultName,
    }));
    for (const t of tables) process.env[t.schema.envVar] = t.tableName;
    await ensureTables(doc, tables);
    print(`Tables: ${tables.map((t) => t.tableName).join(', ')}`);
    started = true;
    const env = (await app.start?.(print)) ?? {};
    // Lets the `cronfence` CLI find this stack (and run the handlers as we do) without flags.
    const written = writeLocalState({
      endpoint,
      region: process.env.AWS_REGION ?? 'us-east-1',
      tables: Object.fromEntries(tables.map((t) => [t.schema.envVar, t.tableName])),
      env,
      pid: process.pid,
      startedAt: new Date().toISOString(),
    });
    if (typeof written === 'string') statePath = written;
    else
      print(
        `Another npm start (pid ${written.ownedBy}) owns .cronfence/local.json: the CLI keeps talking to that one`,
      );
    return { endpoint, doc, close };
  } catch (err) {
    await close();
    throw err;
  }
}

/** Bind the handlers to one set of deps on an emulated clock (with chaos faults when asked). */
function bindHandlers(
  app: LocalApp,
  stack: LocalStack,
  options: RunLocalOptions,
  print: (l: string) => void,
) {
  const clock = new ControlledClock();
  const chaos = options.chaos ? createChaos(options.chaos.seed) : undefined;
  const runDoc = chaos ? createDocumentClient({ endpoint: stack.endpoint }) : stack.doc;
  chaos?.injector.attach(runDoc);
  if (chaos)
    print(`Chaos: seeded fault injection (seed ${chaos.seed}) on the runs' requests and pause points`);
  const deps: RuntimeDeps = createDeps({
    doc: runDoc,
    tableName: process.env[libraryTable.envVar],
    clock,
    ...(chaos && { pausePoint: chaos.pausePoint }),
  });
  const handlers = app.handlers.map((h) => h.withDeps(() => deps));
  const finish = () => {
    if (!chaos) return;
    const injected = Object.entries(chaos.counts()).sort();
    print(`\nChaos (seed ${chaos.seed}): ${injected.reduce((n, [, v]) => n + v, 0)} faults injected`);
    print(`  ${injected.map(([k, v]) => `${k}=${v}`).join(' ') || 'none'}`);
    runDoc.destroy();
  };
  return { clock, deps, handlers, finish };
}

/** Play the range under the emulator, then read back every invariant. @returns the checks. */
async function playAndVerify(
  app: LocalApp,
  stack: LocalStack,
  range: Range,
  options: RunLocalOptions,
  print: (l: string) => void,
): Promise<Check[]> {
  const { clock, deps, handlers, finish } = bindHandlers(app, stack, options, print);
  for (const h of app.handlers) {
    const warnings = dstWarnings({ ...h.job, schedule: h.expression }, range.fromMs);
    if (warnings.length)
      print(
        `DST (${h.job.name}, ${h.job.timeZone}, next 3 years): ${warnings.map((w) => `${w.date} ${w.kind}`).join('; ')}`,
      );
  }
  print(
    `Emulating EventBridge Scheduler from ${iso(range.fromMs)} to ${iso(range.toMs)} (both inclusive), with the sweeper`,
  );
  print(row(COLUMNS.map(([h]) => h)));
  const { summaries, slotsByJob } = await emulate(
    handlers,
    deps,
    {
      fromMs: range.fromMs - 1,
      toMs: range.toMs,
      concurrentCopies: options.concurrentCopies ?? 2,
      lateCopies: options.lateCopies ?? 1,
      clock,
    },
    {
      delivery: (r) => print(line(r)),
      sweep: (d) => print(row(['sweeper', d.slot, 'sweep', d.action, d.reason, '', ''], `   (${d.job})`)),
    },
  );
  const jobs = app.handlers.map((h) => h.job.name);
  const checks = [
    ...(await verifyRunRecordsAndLeases(stack.doc, deps.tableName, jobs, summaries)),
    ...(await app.verify(stack.doc, slotsByJob, summaries)),
  ];
  finish();
  return checks;
}

/** Resolve when one of `signals` arrives (or `release` is called); removes its listeners after. */
function untilSignal(signals: readonly NodeJS.Signals[], onSignal: (sig: NodeJS.Signals) => void) {
  let resolveWait: () => void = () => undefined;
  const done = new Promise<void>((r) => {
    resolveWait = r;
  });
  const handler = (sig: NodeJS.Signals) => {
    onSignal(sig);
    resolveWait();
  };
  for (const s of signals) process.on(s, handler);
  return {
    done,
    dispose: () => {
      for (const s of signals) process.off(s, handler);
    },
  };
}

/** Signals that stop `npm start` with its clean-up: Ctrl-C, kill, and a closed terminal. */
export const STOP_SIGNALS: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

/**
 * Run the app locally. Starts (and always stops) DynamoDB Local unless DYNAMODB_ENDPOINT is set; a
 * stop signal (SIGINT, SIGTERM, SIGHUP) mid-run cleans up (state file, services, DynamoDB Local) and
 * exits 130; during `hold` it ends the hold and returns normally.
 * @returns true when every invariant holds.
 * @throws InvalidArgumentError for an inverted range or too many occurrences without `yes`.
 */
export async function runLocal(app: LocalApp, options: RunLocalOptions = {}): Promise<boolean> {
  const print = options.print ?? ((l: string) => console.log(l));
  const range = resolveRange(app, options, Date.now());
  let stack: LocalStack | undefined;
  let holding = false;
  const signals = untilSignal(STOP_SIGNALS, (sig) => {
    print(`\n${sig}: stopping`);
    if (holding) return; // the hold ends and the normal clean-up below runs
    // Mid-run: clean up once (a second signal must not skip it), then exit.
    holding = true;
    void (stack?.close() ?? Promise.resolve()).then(() => process.exit(130));
  });
  try {
    stack = await openStack(app, print);
    const checks = await playAndVerify(app, stack, range, options, print);
    print('\nVerification (read back from DynamoDB):');
    for (const c of checks) print(`  ${c.ok ? 'PASS' : 'FAIL'}  ${c.name}: ${c.detail}`);
    const ok = checks.every((c) => c.ok);
    print(ok ? '\nAll invariants hold.' : '\nSome invariants FAILED.');
    stack.doc.destroy();
    if (options.hold) {
      holding = true;
      print(
        `\nHolding DynamoDB Local at ${stack.endpoint} for the cronfence CLI (see docs/operations.md); Ctrl-C, or kill ${process.pid} (this process; the pid is also in .cronfence/local.json), stops it.`,
      );
      const keepAlive = setInterval(() => undefined, 3_600_000);
      await signals.done;
      clearInterval(keepAlive);
    }
    return ok;
  } finally {
    signals.dispose();
    await stack?.close();
  }
}
