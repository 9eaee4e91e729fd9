/**
 * `cronfence trigger` and `cronfence backfill` refuse a slot before the job's start (integ: the CLI as a
 * subprocess on DynamoDB Local). The job `settle` replaced an older scheduler at its `catchUp.since`
 * (2026-01-05T00:01:00Z), which paid slot 2026-01-05T00:00:00Z; a manual run of that slot would pay
 * `pay#2026-01-05T00:00:00Z#1` again (the provider has no idempotency keys). Refused: exit 2, the slot,
 * `catchUp.since` and why on stderr, no run record, no provider call. `--before-start` (an operator who
 * checked) runs it.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { type LocalStack, localStack } from '../helpers/local-stack.js';
import { cli, stackEnv } from './cli-harness.js';

const JOBS = ['--jobs', 'test/integ/fixtures/first-deploy-jobs.ts'];
const WHO = ['--requested-by', 'ops-alice', '--reason', 'INC-42 payouts missing'];
const WHY =
  "is before the job's start (catchUp.since 2026-01-05T00:01:00Z): it may have been paid by the scheduler this job replaced; nothing invoked; check it was not paid, then pass --before-start to run it";

let stack: LocalStack;
let env: Record<string, string>;
let providerLog: string;
/** The keys the provider was called with, in order (none: no call). */
const calls = () => {
  try {
    return readFileSync(providerLog, 'utf8').split('\n').filter(Boolean);
  } catch {
    return [];
  }
};
const records = async () =>
  (await stack.runRecords('settle'))
    .map((r) => [r.slot, r.trigger, r.outcome, r.reason ?? '-', r.requestedBy])
    .sort();

beforeAll(async () => {
  stack = await localStack();
  providerLog = join(mkdtempSync(join(tmpdir(), 'cronfence-before-start-')), 'provider.log');
  env = stackEnv(stack, { PROVIDER_LOG: providerLog, CRONFENCE_OPERATOR: 'ops-alice' });
}, 120_000);

describe('manual runs before the job start', () => {
  it('refuses trigger and backfill of a slot before catchUp.since: exit 2, nothing recorded, no provider call', async () => {
    const t = await cli(['trigger', 'settle', '--slot', '2026-01-05T00:00:00Z', '--local', ...JOBS], env);
    expect([t.code, t.stderr]).toEqual([
      2,
      `cronfence: invalid --slot "2026-01-05T00:00:00Z": slot 2026-01-05T00:00:00Z ${WHY}\n`,
    ]);
    const b = await cli(
      [
        'backfill',
        'settle',
        '--from',
        '2026-01-04T23:50:00Z',
        '--to',
        '2026-01-05T00:10:00Z',
        ...WHO,
        '--local',
        ...JOBS,
      ],
      env,
    );
    expect([b.code, b.stderr]).toEqual([
      2,
      `cronfence: invalid --from "2026-01-04T23:50:00Z": slot 2026-01-04T23:50:00Z (and 1 more slot(s) before it) ${WHY}\n`,
    ]);
    expect(await records()).toEqual([]);
    expect(calls()).toEqual([]);
  }, 120_000);

  it('runs them with --before-start', async () => {
    const t = await cli(
      ['trigger', 'settle', '--slot', '2026-01-05T00:00:00Z', '--before-start', '--local', ...JOBS],
      env,
    );
    expect(t.code, t.stderr).toBe(0);
    expect(calls()).toEqual([
      'pay#2026-01-05T00:00:00Z#0',
      'pay#2026-01-05T00:00:00Z#1',
      'pay#2026-01-05T00:00:00Z#2',
    ]);
    const b = await cli(
      [
        'backfill',
        'settle',
        '--from',
        '2026-01-05T00:00:00Z',
        '--to',
        '2026-01-05T00:10:00Z',
        ...WHO,
        '--before-start',
        '--local',
        ...JOBS,
      ],
      env,
    );
    // A manual run re-runs the slot the trigger paid, but its effects succeeded: not sent again. The
    // slot after the start runs and pays.
    expect(b.code, b.stderr).toBe(0);
    expect(await records()).toEqual([
      ['2026-01-05T00:00:00Z', 'manual', 'succeeded', '-', 'ops-alice'],
      ['2026-01-05T00:00:00Z', 'manual', 'succeeded', '-', 'ops-alice'],
      ['2026-01-05T00:10:00Z', 'manual', 'succeeded', '-', 'ops-alice'],
    ]);
    expect(calls()).toEqual([
      'pay#2026-01-05T00:00:00Z#0',
      'pay#2026-01-05T00:00:00Z#1',
      'pay#2026-01-05T00:00:00Z#2',
      'pay#2026-01-05T00:10:00Z#0',
      'pay#2026-01-05T00:10:00Z#1',
      'pay#2026-01-05T00:10:00Z#2',
    ]);
  }, 180_000);
});
