/**
 * integ: ECS task drills. Each task is a REAL child process (`node` running lib/entries/ecs-task.ts
 * through tsx, as the container runs the built entry) against DynamoDB Local, and receives real signals
 * the way ECS sends them (SIGTERM then SIGKILL; SIGSTOP/SIGCONT stand in for a frozen task). The job is
 * the example export (functions/nightly-export.ts) with short parts and a 4 s lease (renewed every
 * 1.33 s: short, with room for a slow DynamoDB Local on a loaded machine); its e-mail goes to the local payment service, which counts what it executed.
 */

import { rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
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
    env: {
      EXPORTS_TABLE: exportsName,
      PAYMENTS_URL: pay.url,
      CRONFENCE_STOP_TIMEOUT_SECONDS: '10',
      POWERTOOLS_LOG_LEVEL: 'DEBUG',
      ...env,
    },
  });
}

/** Poll `check` every 50 ms; fail at once (with its output) when `proc` exits first. */
async function until(
  what: string,
  check: () => Promise<boolean> | boolean,
  proc?: EcsTaskProcess,
  timeoutMs = 40_000,
): Promise<void> {
  const end = Date.now() + timeoutMs;
  let exited = false;
  void proc?.exited.then(() => {
    exited = true;
  });
  while (!(await check())) {
    if (exited) throw new Error(`task exited before ${what}:\n${proc?.lines.join('\n')}`);
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}:\n${proc?.lines.join('\n')}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The task's exit, or a failure with its output after `timeoutMs`. */
async function exitOf(proc: EcsTaskProcess, timeoutMs = 45_000): ReturnType<() => EcsTaskProcess['exited']> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`task ${proc.pid} still running:\n${proc.lines.join('\n')}`)),
      timeoutMs,
    );
  });
  try {
    return await Promise.race([proc.exited, late]);
  } finally {
    clearTimeout(timer);
  }
}

const rows = async () =>
  (await stack.scan(exportsName))
    .map((r) => ({
      part: r.part,
      fence: r['cronfence:fence'],
      writtenAtMs: r['cronfence:writtenAtMs'] as number,
    }))
    .sort((a, b) => String(a.part).localeCompare(String(b.part)));
const partWritten = async () => (await stack.scan(exportsName)).some((r) => r.part === 'part-000');
const lease = async () =>
  (
    await stack.doc.send(
      new GetCommand({ TableName: stack.tableName, Key: { pk: 'JOB#ecs-drill', sk: 'LEASE' } }),
    )
  ).Item as Record<string, unknown>;
/** Run records by fence; `attempt` is Scheduler's attempt number (an abandoned mark written by the successor has none). */
const records = async () =>
  (await stack.runRecords('ecs-drill'))
    .map((r) => ({ attempt: r.attemptNumber, fence: r.fence, outcome: r.outcome, reason: r.reason }))
    .sort((a, b) => Number(a.fence) - Number(b.fence));
const emails = () => pay.emails(exportEmailKey(DATE)).length;
/** The rows of a finished export, sorted as {@link rows} sorts them: `manifest` (fence `fenceOf(n)`), then the parts. */
const parts = (n: number, fenceOf: (i: number) => number) => [
  { part: 'manifest', fence: fenceOf(n) },
  ...Array.from({ length: n }, (_, i) => ({ part: `part-${String(i).padStart(3, '0')}`, fence: fenceOf(i) })),
];
const withoutTimes = (r: { part: unknown; fence: unknown }[]) =>
  r.map(({ part, fence }) => ({ part, fence }));

describe('ECS task drills (child processes, DynamoDB Local)', { timeout: 90_000 }, () => {
  it('two tasks for one occurrence: one succeeded, the duplicate exits 0 after recording skipped / lease-held', async () => {
    // The first task holds before its last part (renewing) until the duplicate has exited, however long
    // the duplicate's start takes; a 10 s lease (renewed every 3.3 s) rides out a slow DynamoDB Local.
    const hold = join(tmpdir(), `ecs-drill-hold-${process.pid}-${Date.now()}`);
    const a = task(1, {
      DRILL_PARTS: '4',
      DRILL_PART_MS: '200',
      DRILL_HOLD_FILE: hold,
      DRILL_LEASE_SECONDS: '10',
    });
    await until('the first task to write a part', partWritten, a);
    const rb = await exitOf(task(1, { DRILL_LEASE_SECONDS: '10' }));
    writeFileSync(hold, '');
    const ra = await exitOf(a);
    rmSync(hold, { force: true });
    expect([ra.code, rb.code], JSON.stringify([ra.result, rb.result])).toEqual([0, 0]);
    expect([ra.result?.summary?.outcome, rb.result?.summary?.outcome]).toEqual(['succeeded', 'skipped']);
    expect(rb.result?.summary?.reason).toBe('lease-held');
    expect((await records()).map((r) => [r.outcome, r.reason ?? null, r.fence ?? null]).sort()).toEqual([
      ['skipped', 'lease-held', null],
      ['succeeded', null, 1],
    ]);
    expect(withoutTimes(await rows())).toEqual(parts(4, () => 1));
    expect(emails()).toBe(1);
  });

  it('SIGTERM mid-body: failed / terminated recorded, lease released, no write after the record; the retry runs at once', async () => {
    const a = task(1, { DRILL_PARTS: '10', DRILL_PART_MS: '300' });
    await until('the task to write a part', partWritten, a);
    a.signal('SIGTERM');
    const ra = await exitOf(a);
    expect(ra.code).toBe(1);
    expect(ra.result?.summary).toMatchObject({ outcome: 'failed', reason: 'terminated', fence: 1 });
    expect(ra.result?.error?.name).toBe('TerminatedError');
    const [terminated] = await stack.runRecords('ecs-drill');
    expect(terminated).toMatchObject({ outcome: 'failed', reason: 'terminated', fence: 1, attemptNumber: 1 });
    const finishedAtMs = terminated?.finishedAtMs as number;
    const written = await rows();
    expect(written.length).toBeGreaterThan(0);
    expect(written.filter((r) => r.writtenAtMs > finishedAtMs)).toEqual([]);
    // Released (docs/design.md step 6): expiry 0, holder state `released`, the fence kept.
    expect(await lease()).toMatchObject({ leaseUntilMs: 0, holderState: 'released', fence: 1 });
    // The retry finds the lease free: it claims without waiting and nothing is abandoned.
    const b = await exitOf(task(2, { DRILL_PARTS: '10', DRILL_PART_MS: '10' }));
    expect(b.code).toBe(0);
    expect(await records()).toEqual([
      { attempt: 1, fence: 1, outcome: 'failed', reason: 'terminated' },
      { attempt: 2, fence: 2, outcome: 'succeeded', reason: undefined },
    ]);
    const firstParts = written.length;
    expect(withoutTimes(await rows())).toEqual(parts(10, (i) => (i < firstParts && i < 10 ? 1 : 2)));
    expect(emails()).toBe(1);
  });

  it('SIGKILL mid-body: the next claimer records the task abandoned, the retry succeeds, one business result', async () => {
    const a = task(1, { DRILL_PARTS: '10', DRILL_PART_MS: '300' });
    await until('the task to write a part', partWritten, a);
    a.signal('SIGKILL');
    expect(await exitOf(a)).toMatchObject({ code: null, signal: 'SIGKILL' });
    const killedParts = (await rows()).length;
    await until(
      "the killed task's lease to pass",
      async () => ((await lease()).leaseUntilMs as number) < Date.now(),
    );
    const b = await exitOf(task(2, { DRILL_PARTS: '10', DRILL_PART_MS: '10' }));
    expect(b.code).toBe(0);
    expect(await records()).toEqual([
      { attempt: undefined, fence: 1, outcome: 'abandoned', reason: 'not-released' },
      { attempt: 2, fence: 2, outcome: 'succeeded', reason: undefined },
    ]);
    expect(withoutTimes(await rows())).toEqual(parts(10, (i) => (i < killedParts && i < 10 ? 1 : 2)));
    expect(emails()).toBe(1);
  });

  it('SIGSTOP past the lease, SIGCONT after the successor finished: the woken task writes nothing, its run is stale', async () => {
    const a = task(1, { DRILL_PARTS: '10', DRILL_PART_MS: '300' });
    await until('the task to write a part', partWritten, a);
    a.signal('SIGSTOP');
    const frozenRows = await rows();
    await until(
      "the frozen task's lease to pass",
      async () => ((await lease()).leaseUntilMs as number) < Date.now(),
    );
    const b = await exitOf(task(2, { DRILL_PARTS: '10', DRILL_PART_MS: '10' }));
    expect(b.code).toBe(0);
    const afterSuccessor = await rows();
    a.signal('SIGCONT');
    const ra = await exitOf(a);
    expect(ra.code).toBe(1);
    expect(ra.result?.summary).toMatchObject({ outcome: 'stale', reason: 'lease-lost', fence: 1 });
    expect(await records()).toEqual([
      { attempt: 1, fence: 1, outcome: 'stale', reason: 'lease-lost' },
      { attempt: 2, fence: 2, outcome: 'succeeded', reason: undefined },
    ]);
    // The successor's rows stand exactly as it left them; the frozen task's parts stay its own.
    expect(await rows()).toEqual(afterSuccessor);
    const mine = frozenRows.length;
    expect(withoutTimes(afterSuccessor)).toEqual(parts(10, (i) => (i < mine && i < 10 ? 1 : 2)));
    expect(emails()).toBe(1);
  });

  it('cut off from DynamoDB longer than its lease: it sends nothing new from its lease end less the skew budget', async () => {
    const proxy = await startTcpProxy(stack.endpoint);
    try {
      const a = task(1, { DRILL_PARTS: '10', DRILL_PART_MS: '300' }, proxy.endpoint);
      await until('the task to write a part', partWritten, a);
      proxy.cut();
      const cutAtMs = Date.now();
      // The lease as DynamoDB holds it (a renewal sent just before the cut may still land): what a
      // successor would see pass. Read directly, not through the proxy.
      await until(
        'the lease to pass by a second',
        async () => Date.now() > ((await lease()).leaseUntilMs as number) + 1_000,
      );
      const leaseEndMs = (await lease()).leaseUntilMs as number;
      proxy.restore();
      const ra = await exitOf(a);
      expect(ra.code).toBe(1);
      expect(ra.result?.summary).toMatchObject({ outcome: 'stale', reason: 'lease-lost', fence: 1 });
      expect(await lease()).toMatchObject({ leaseUntilMs: leaseEndMs, fence: 1 });
      // From lease end - 200 ms on, the task began no request: what arrived is an SDK retry of a call
      // begun before, or the put of its own run record.
      const firstSeen = new Map<string, number>();
      for (const r of proxy.requests)
        if (!firstSeen.has(r.invocationId)) firstSeen.set(r.invocationId, r.atMs);
      const begunLate = proxy.requests.filter(
        (r) =>
          (firstSeen.get(r.invocationId) as number) >= leaseEndMs - 200 &&
          !(r.operation === 'PutItem' && r.body.includes('"RUN#')),
      );
      expect(begunLate).toEqual([]);
      expect(proxy.requests.filter((r) => r.cut).length).toBeGreaterThan(0);
      expect(cutAtMs).toBeLessThan(leaseEndMs);
      const b = await exitOf(task(2, { DRILL_PARTS: '10', DRILL_PART_MS: '10' }));
      expect(b.code).toBe(0);
      expect(await records()).toEqual([
        { attempt: 1, fence: 1, outcome: 'stale', reason: 'lease-lost' },
        { attempt: 2, fence: 2, outcome: 'succeeded', reason: undefined },
      ]);
      expect(emails()).toBe(1);
    } finally {
      await proxy.stop();
    }
  });

  it('a run of several renew periods completes: renewed throughout, one claim, no failed renewal', async () => {
    // 6 parts of 1 s: 6 s, four and a half renew periods of the 4 s lease (renewed every 1.33 s).
    const a = task(1, { DRILL_PARTS: '6', DRILL_PART_MS: '1000' });
    const ra = await exitOf(a);
    expect(ra.code).toBe(0);
    expect(ra.result?.summary).toMatchObject({ outcome: 'succeeded', fence: 1 });
    const messages = a.lines.map((l) =>
      l.startsWith('{"level"') ? (JSON.parse(l) as { message: string }).message : '',
    );
    expect(messages.filter((m) => m === 'lease renewed').length).toBeGreaterThanOrEqual(4);
    expect(messages.filter((m) => m === 'lease renewal failed')).toEqual([]);
    expect(await records()).toEqual([{ attempt: 1, fence: 1, outcome: 'succeeded', reason: undefined }]);
    expect(withoutTimes(await rows())).toEqual(parts(6, () => 1));
    expect(emails()).toBe(1);
    expect(await lease()).toMatchObject({ fence: 1, holderState: 'released', leaseUntilMs: 0 });
  });
});
