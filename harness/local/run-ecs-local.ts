/**
 * `npm start -- --ecs`: an ECS job (the example's: functions/nightly-export.ts) run as ECS runs it, as
 * real child processes on DynamoDB Local: the task entry for the latest occurrence twice at once (Scheduler
 * may start two tasks; one succeeds, the duplicate exits 0 `skipped / lease-held`), then the occurrence
 * before it with a SIGTERM half way (`failed / terminated`, lease released) and its retry (succeeds,
 * keeping the parts already written). Prints each task's result and checks them.
 */
import { resolve } from 'node:path';
import { enumerateSlots } from '../../lib/core/schedule/enumerate.js';
import type { JobHandler } from '../../lib/runtime/define-job.js';
import { createDocumentClient } from '../../lib/store/client.js';
import { libraryTable, type TableSchema } from '../../lib/store/schema.js';
import { startDynamoDbLocal } from './dynamodb-local.js';
import { type EcsTaskProcess, startEcsTask } from './ecs-task-process.js';
import { startPaymentService } from './payment-service.js';
import { ensureTables } from './tables.js';
import { scanAll } from './verify.js';

/** The ECS job `--ecs` runs, and what its runs must leave. */
export interface EcsLocalApp {
  readonly handler: JobHandler;
  /** The jobs module its container names (`CRONFENCE_JOBS_MODULE`), relative to the working directory. */
  readonly jobsModule: string;
  /** The application table its body writes (created under its default name). */
  readonly table: TableSchema;
  /** Environment of its tasks beyond the tables (e.g. a short part time for a local run). */
  readonly env: Readonly<Record<string, string>>;
  /** Rows one finished occurrence leaves in `table`. */
  readonly rowsPerOccurrence: number;
  /** Idempotency key of the e-mail one occurrence sends (through the local payment service). */
  emailKey(businessDate: string): string;
}

/** Run `app`'s job locally as ECS tasks; resolves true when every check held. */
export async function runEcsLocal(
  app: EcsLocalApp,
  print: (line: string) => void = console.log,
): Promise<boolean> {
  const { handler, table } = app;
  const db = await startDynamoDbLocal();
  const doc = createDocumentClient({ endpoint: db.endpoint });
  const pay = await startPaymentService();
  try {
    const tables = { library: 'cronfence-local', exports: table.defaultName };
    await ensureTables(doc, [
      { schema: libraryTable, tableName: tables.library },
      { schema: table, tableName: tables.exports },
    ]);
    const def = handler.job;
    const now = Date.now();
    const [before, latest] = enumerateSlots(def, now - 3 * 86_400_000, now).slice(-2);
    if (!before || !latest) throw new Error(`${def.name} has no two occurrences in the last 3 days`);
    const task = (scheduledTimeMs: number, attempt: number): EcsTaskProcess =>
      startEcsTask({
        jobsModule: resolve(app.jobsModule),
        job: def.name,
        occurrence: {
          scheduledTime: new Date(scheduledTimeMs).toISOString(),
          attempt,
          executionId: `local-${attempt}`,
          trigger: 'schedule',
        },
        tableName: tables.library,
        endpoint: db.endpoint,
        env: {
          [table.envVar]: tables.exports,
          PAYMENTS_URL: pay.url,
          CRONFENCE_STOP_TIMEOUT_SECONDS: '10',
          ...app.env,
        },
      });
    const show = (what: string, r: Awaited<EcsTaskProcess['exited']>) => {
      const s = r.result?.summary;
      print(
        `  ${what}: exit ${r.code ?? r.signal}, ${s ? `${s.outcome}${s.reason ? ` / ${s.reason}` : ''} (fence ${s.fence ?? '-'})` : r.result?.error?.message}`,
      );
      return s;
    };
    print(
      `ECS tasks of ${def.name} (${app.jobsModule}) as child processes on DynamoDB Local (${db.endpoint}):`,
    );
    print(`occurrence ${latest.id}: two tasks at once (Scheduler may start two)`);
    const [a, b] = await Promise.all([
      task(latest.scheduledTimeMs, 1).exited,
      task(latest.scheduledTimeMs, 1).exited,
    ]);
    const outcomes = [show('task 1', a)?.outcome, show('task 2', b)?.outcome].sort();
    print(`occurrence ${before.id}: SIGTERM after the first part, then the retry`);
    const stopped = task(before.scheduledTimeMs, 1);
    const part0 = async () =>
      (await scanAll(doc, tables.exports)).some(
        (r) => r.exportDate === before.businessDate && r.part === 'part-000',
      );
    while (!(await part0()) && stopped.child.exitCode === null) await new Promise((r) => setTimeout(r, 50));
    stopped.signal('SIGTERM');
    const terminated = show('task 1 (SIGTERM)', await stopped.exited);
    const retried = show('task 2 (retry)', await task(before.scheduledTimeMs, 2).exited);
    const rows = await scanAll(doc, tables.exports);
    const checks: [string, boolean][] = [
      ['duplicate tasks: one succeeded, one skipped', outcomes.join(',') === 'skipped,succeeded'],
      [
        'SIGTERM: failed / terminated',
        terminated?.outcome === 'failed' && terminated.reason === 'terminated',
      ],
      ['the retry succeeded', retried?.outcome === 'succeeded'],
      [`${2 * app.rowsPerOccurrence} rows, each written once`, rows.length === 2 * app.rowsPerOccurrence],
      [
        'one e-mail per occurrence',
        [latest, before].every((s) => pay.emails(app.emailKey(s.businessDate)).length === 1),
      ],
    ];
    for (const [what, ok] of checks) print(`  ${ok ? 'ok  ' : 'FAIL'} ${what}`);
    return checks.every(([, ok]) => ok);
  } finally {
    await pay.stop();
    doc.destroy();
    await db.stop();
  }
}
