/**
 * Operator writes on a job's lease are conditioned on what the operator was shown (integ: the CLI as a
 * subprocess on DynamoDB Local): `trigger` and `backfill` are refused while a live run holds the lease,
 * naming the holder and when its lease ends, and invoke nothing; `trigger --dry-run` shows the lease's
 * VERSION; `--expect` with a version the lease no longer has refuses `trigger`, `backfill`, `pause` and
 * `resume`, printing the lease as it is now, and changes nothing.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { DynamoLeaseStore } from '../../lib/store/lease-store.js';
import { type LocalStack, localStack } from '../helpers/local-stack.js';
import { cli, stackEnv } from './cli-harness.js';

const JOB = 'daily-report';
let stack: LocalStack;
let env: Record<string, string>;

beforeEach(async () => {
  stack = await localStack();
  env = stackEnv(stack, { CRONFENCE_OPERATOR: 'ops-alice' });
});

const iso = (ms: number) => `${new Date(ms).toISOString().slice(0, 19)}Z`;
const leaseItem = async () =>
  (await stack.scan(stack.tableName)).find((i) => i.pk === `JOB#${JOB}` && i.sk === 'LEASE');

/** A live run `r-live` holding the job's lease for 10 minutes from now. */
async function liveHolder(): Promise<number> {
  const nowMs = Date.now();
  const leaseUntilMs = nowMs + 10 * 60_000;
  const leases = new DynamoLeaseStore(stack.doc, stack.tableName);
  const r = await leases.claim({ job: JOB, runId: 'r-live', slotId: '2026-03-28', nowMs, leaseUntilMs });
  expect(r.kind).toBe('acquired');
  return leaseUntilMs;
}

describe('operator writes on a lease', () => {
  it('refuses trigger and backfill while a live run holds the lease, naming it; nothing is invoked', async () => {
    const until = await liveHolder();
    const before = await leaseItem();
    const refusal = `cronfence: job ${JOB}: lease JOB#${JOB} is held by run r-live (slot 2026-03-28, fence 1) until ${iso(until)}: nothing invoked (a manual run now would only be recorded skipped / lease-held); wait until that run records its outcome or its lease ends (cronfence lease ${JOB}), then retry\n`;
    const t = await cli(['trigger', JOB, '--local'], env);
    expect([t.code, t.stderr]).toEqual([1, refusal]);
    const b = await cli(
      [
        'backfill',
        JOB,
        '--from',
        '2026-03-27',
        '--to',
        '2026-03-27',
        '--requested-by',
        'ops',
        '--reason',
        'x',
        '--local',
      ],
      env,
    );
    expect([b.code, b.stderr]).toEqual([1, refusal]);
    expect(await stack.runRecords(JOB)).toEqual([]);
    expect(await leaseItem()).toEqual(before);
    // The read-only view shows the holder and the version instead of refusing.
    const dry = await cli(['trigger', JOB, '--slot', '2026-03-27T02:30', '--dry-run'], env);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout.split('\n')[0]).toMatch(
      new RegExp(
        `^Dry run: ${JOB} slot 2026-03-27T02:30 \\(scheduled \\S+Z\\); lease version 1:-; held by run r-live \\(slot 2026-03-28\\) until ${iso(until)}; nothing invoked\\.$`,
      ),
    );
  }, 120_000);

  it('refuses trigger, backfill, pause and resume with a version the lease no longer has; changes nothing', async () => {
    const dry = await cli(['trigger', JOB, '--slot', '2026-03-27T02:30', '--dry-run'], env);
    expect(dry.stdout).toMatch(/lease version -:-; no live holder; nothing invoked\.\n/);
    expect(dry.stdout.split('\n')[1]).toBe(
      `Run it: cronfence trigger ${JOB} --slot 2026-03-27T02:30 --expect -:-`,
    );
    const paused = await cli(['pause', JOB, '--note', 'INC-7', '--expect', '-:-'], env);
    expect(paused.code, paused.stderr).toBe(0);
    const item = await leaseItem();
    const pausedAtMs = Number(item?.pausedAtMs);
    expect(paused.stdout.split('\n')[0]).toBe(
      `paused ${JOB} (1 lease item) by ops-alice at ${iso(pausedAtMs)}: "INC-7"; lease version -:- -> -:${pausedAtMs}`,
    );
    const changed = `cronfence: job ${JOB}: its lease changed since version -:- was shown: it is now version -:${pausedAtMs} (fence -, no holder, paused by ops-alice at ${new Date(pausedAtMs).toISOString()}): nothing changed; look again and retry with the version shown now\n`;
    const t = await cli(['trigger', JOB, '--local', '--expect', '-:-'], env);
    expect([t.code, t.stderr]).toEqual([1, changed]);
    const b = await cli(
      [
        'backfill',
        JOB,
        '--from',
        '2026-03-27',
        '--to',
        '2026-03-27',
        '--requested-by',
        'ops',
        '--reason',
        'x',
        '--local',
        '--expect',
        '-:-',
      ],
      env,
    );
    expect([b.code, b.stderr]).toEqual([1, changed]);
    const p2 = await cli(['pause', JOB, '--note', 'again', '--expect', '-:-'], env);
    expect([p2.code, p2.stderr]).toEqual([1, changed]);
    const r = await cli(['resume', JOB, '--expect', '-:-'], env);
    expect([r.code, r.stderr]).toEqual([1, changed]);
    expect(await leaseItem()).toEqual(item);
    expect(await stack.runRecords(JOB)).toEqual([]);
    const resumed = await cli(['resume', JOB, '--expect', `-:${pausedAtMs}`], env);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout.split('\n')[0]).toBe(
      `resumed ${JOB}: paused by ops-alice at ${iso(pausedAtMs)} ("INC-7"); lease version -:${pausedAtMs} -> -:-`,
    );
  }, 120_000);
});
