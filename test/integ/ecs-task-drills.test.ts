/**
 * integ: ECS task drills. Each task is a REAL child process (`node` running lib/entries/ecs-task.ts
 * through tsx, as the container runs the built entry) against DynamoDB Local, and receives real signals
 * the way ECS sends them (SIGTERM then SIGKILL; SIGSTOP/SIGCONT stand in for a frozen task). The job is
 * the example export (functions/nightly-export.ts) with short parts and a 2 s lease (renewed every
 * 0.67 s); its e-mail goes to the local payment service, which counts what it executed.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { resolve } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { exportEmailKey } from '../../functions/nightly-export.js';
import { exportsTable } from '../../functions/tables.js';
import { type EcsTaskProcess, startEcsTask } from '../../harness/local/ecs-task-process.js';
import { type PaymentService, startPaymentService } from '../../harness/local/payment-service.js';
import { ensureTables } from '../../harness/local/tables.js';
import { type LocalStack, localStack } from '../helpers/local-stack.js';
import { startTcpProxy } from '../helpers/tcp-proxy.js';

const JOBS = resolve('test/helpers/ecs-drill-jobs.ts');
/** 00:30 Europe/London (BST) on 2026-06-02: the export of 2026-06-01. */
const SCHEDULED = '2026-06-01T23:30:00Z';
const DATE = '2026-06-01';

let stack: LocalStack;
let exportsName: string;
let pay: PaymentService;

beforeAll(async () => {
  pay = await startPaymentService();
});
afterAll(() => pay.stop());
beforeEach(async () => {
  stack = await localStack();
  exportsName = `cf-exports-${stack.tableName.slice(-8)}`;
  await ensureTables(stack.doc, [{ schema: exportsTable, tableName: exportsName }]);
});

function task(attempt: number, env: Record<string, string> = {}, endpoint = stack.endpoint): EcsTaskProcess {
  return startEcsTask({
    jobsModule: JOBS,
    job: 'ecs-drill',
    occurrence: { scheduledTime: SCHEDULED, attempt, executionId: `exec-${attempt}`, trigger: 'schedule' },
    tableName: stack.tableName,
    endpoint,
    env: { EXPORTS_TABLE: exportsName, PAYMENTS_URL: pay.url, CRONFENCE_STOP_TIMEOUT_SECONDS: '10', ...env },
  });
}

async function until(what: string, check: () => Promise<boolean> | boolean, timeoutMs = 40_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const rows = async () =>
  (await stack.scan(exportsName))
    .map((r) => ({ part: r.part, fence: r['cronfence:fence'], writtenAtMs: r['cronfence:writtenAtMs'] as number }))
    .sort((a, b) => String(a.part).localeCompare(String(b.part)));
const partWritten = async () => (await stack.scan(exportsName)).some((r) => r.part === 'part-000');
const lease = async () =>
  (await stack.doc.send(new GetCommand({ TableName: stack.tableName, Key: { pk: 'JOB#ecs-drill', sk: 'LEASE' } })))
    .Item as Record<string, unknown>;
const records = async () =>
  (await stack.runRecords('ecs-drill'))
    .map((r) => ({ attempt: r.attemptNumber, fence: r.fence, outcome: r.outcome, reason: r.reason }))
    .sort((a, b) => Number(a.attempt) - Number(b.attempt));
const emails = () => pay.emails(exportEmailKey(DATE)).length;
/** The rows of a finished export, sorted as {@link rows} sorts them: `manifest` (fence `fenceOf(n)`), then the parts. */
const parts = (n: number, fenceOf: (i: number) => number) => [
  { part: 'manifest', fence: fenceOf(n) },
  ...Array.from({ length: n }, (_, i) => ({ part: `part-${String(i).padStart(3, '0')}`, fence: fenceOf(i) })),
];
const withoutTimes = (r: { part: unknown; fence: unknown }[]) => r.map(({ part, fence }) => ({ part, fence }));

describe('ECS task drills (child processes, DynamoDB Local)', { timeout: 90_000 }, () => {
  it('two tasks for one occurrence: one succeeded, the duplicate exits 0 after recording skipped / lease-held', async () => {
    const a = task(1, { DRILL_PARTS: '6', DRILL_PART_MS: '700' });
    await until('the first task to write a part', partWritten);
    const b = task(1);
    const [ra, rb] = await Promise.all([a.exited, b.exited]);
    expect([ra.code, rb.code]).toEqual([0, 0]);
    expect([ra.result?.summary?.outcome, rb.result?.summary?.outcome]).toEqual(['succeeded', 'skipped']);
    expect(rb.result?.summary?.reason).toBe('lease-held');
    expect((await records()).map((r) => [r.outcome, r.reason ?? null, r.fence ?? null]).sort()).toEqual([
      ['skipped', 'lease-held', null],
      ['succeeded', null, 1],
    ]);
    expect(withoutTimes(await rows())).toEqual(parts(6, () => 1));
    expect(emails()).toBe(1);
  });
});
