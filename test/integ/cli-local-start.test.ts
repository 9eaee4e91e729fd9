/**
 * `npm start -- --hold` and the CLI beside it (integ: subprocesses on DynamoDB Local), as the README
 * and docs/operations.md describe: a local backfill runs the handlers with the same payment provider as
 * `npm start` (its URL travels in `.cronfence/local.json`), a run that left an effect in needs-review is
 * not reported as success, a backfill that would invoke AWS while reading DynamoDB Local is refused,
 * and a closed terminal (SIGHUP) stops the hold with the same clean-up as Ctrl-C.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { payoutKey } from '../../functions/merchant-settlement.js';
import { MERCHANTS, settlementAmountCents } from '../../functions/merchants.js';
import type { LocalState } from '../../harness/local/local-state.js';
import { digestOf } from '../../lib/effects/keys.js';
import { Keys } from '../../lib/store/schema.js';
import { type LocalStack, localStack } from '../helpers/local-stack.js';
import { cli } from './cli-harness.js';
import { offlineEnv, ROOT } from './repo-copy.js';

let stack: LocalStack;
let cwd: string;
let start: ChildProcess;
let startOut = '';
let startExit: Promise<number | null>;

const statePath = () => join(cwd, '.cronfence', 'local.json');
/** The CLI in `cwd`, with no endpoint or table in its environment: it finds `npm start` by its state file. */
const cronfence = (args: string[]) => cli(args, offlineEnv(), cwd);
/** `cronfence backfill <job> --from <day> --to <day>` by alice, plus `extra` flags. */
const backfill = (job: string, day: string, ...extra: string[]) =>
  cronfence([
    'backfill',
    job,
    '--from',
    day,
    '--to',
    day,
    '--requested-by',
    'alice',
    '--reason',
    'test',
    ...extra,
  ]);

beforeAll(async () => {
  stack = await localStack();
  cwd = mkdtempSync(join(tmpdir(), 'cronfence-hold-'));
  start = spawn(
    resolve(ROOT, 'node_modules/.bin/tsx'),
    [resolve(ROOT, 'bin/dev.ts'), 'start', '--hold', '--from', '2026-11-20', '--to', '2026-11-20'],
    {
      cwd,
      detached: true, // its own process group, as a terminal's job is
      env: offlineEnv({
        DYNAMODB_ENDPOINT: stack.endpoint,
        CRONFENCE_TABLE: stack.tableName,
        REPORTS_TABLE: stack.reports,
        SETTLEMENTS_TABLE: stack.settlements,
      }),
    },
  );
  startExit = new Promise((done) => start.on('exit', (code) => done(code)));
  start.stdout?.on('data', (c) => {
    startOut += String(c);
  });
  start.stderr?.on('data', (c) => {
    startOut += String(c);
  });
  const deadline = Date.now() + 150_000;
  while (!startOut.includes('Holding DynamoDB Local')) {
    if (Date.now() > deadline || start.exitCode !== null)
      throw new Error(`npm start did not hold:\n${startOut}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}, 180_000);

/** Whether a process group still has members. */
function groupAlive(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}

afterAll(() => {
  if (start.pid !== undefined && groupAlive(start.pid)) process.kill(-start.pid, 'SIGINT');
});

describe('npm start -- --hold', () => {
  it('plays the whole UTC day of --from D --to D: each job once, and holds with the payment service in its state file', () => {
    expect(startOut).toContain(
      'Emulating EventBridge Scheduler from 2026-11-20T00:00:00.000Z to 2026-11-20T23:59:59.999Z (both inclusive), with the sweeper',
    );
    const succeeded = startOut
      .split('\n')
      .map((l) => l.split(/\s+/).slice(0, 4).join(' '))
      .filter((l) => l.endsWith(' succeeded'));
    expect(succeeded).toEqual([
      'daily-report 2026-11-20T02:30 schedule succeeded',
      'merchant-settlement 2026-11-21T01:00 schedule succeeded',
    ]);
    const state = JSON.parse(readFileSync(statePath(), 'utf8')) as LocalState;
    expect(state.env).toEqual({
      PAYMENTS_URL: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/),
      PAYMENTS_CAPABILITIES: 'idempotency-keys,lookup',
    });
  });
});

describe('backfill --local beside npm start', () => {
  it('pays the merchants through the same payment service as npm start', async () => {
    const r = await backfill('merchant-settlement', '2026-11-10', '--local', '--json');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ counts: { succeeded: 1 } });
    const url = (JSON.parse(readFileSync(statePath(), 'utf8')) as LocalState).env?.PAYMENTS_URL;
    const payouts = (await (await fetch(`${url}/payouts`)).json()) as { body: { settlementDate: string } }[];
    expect(payouts.filter((p) => p.body.settlementDate === '2026-11-09')).toHaveLength(MERCHANTS.length);
    const emails = (await (await fetch(`${url}/emails`)).json()) as { key: string }[];
    expect(emails.filter((e) => e.key === 'email#settlement#2026-11-09')).toHaveLength(1);
  });

  it('reports a run that left an effect in needs-review as needs-review, exit 1', async () => {
    const m = MERCHANTS[0];
    if (!m) throw new Error('no merchants');
    const date = '2026-11-08';
    const request = {
      merchantId: m.merchantId,
      settlementDate: date,
      amountCents: settlementAmountCents(m, date),
      currency: m.currency,
    };
    const key = payoutKey(m.merchantId, date);
    await stack.doc.send(
      new PutCommand({
        TableName: stack.tableName,
        Item: {
          ...Keys.effect('merchant-settlement', key),
          kind: 'effect',
          key,
          job: 'merchant-settlement',
          provider: 'payments',
          status: 'needs-review',
          requestHash: digestOf(request),
          fence: 1,
          leaseKey: 'JOB#merchant-settlement',
          runId: 'run-earlier',
          attempts: 1,
          createdAtMs: Date.now() - 60_000,
          updatedAtMs: Date.now() - 60_000,
          reviewReason: 'outcome unknown',
          problem: 'needs-review',
          problemAtMs: Date.now() - 60_000,
        },
      }),
    );
    const r = await backfill('merchant-settlement', '2026-11-09', '--local');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(1);
    const lines = r.stdout.split('\n');
    expect(
      lines
        .find((l) => l.startsWith('2026-11-09T01:00'))
        ?.split(/\s+/)
        .slice(0, 3),
    ).toEqual(['2026-11-09T01:00', '2026-11-08T17:00:00Z', 'needs-review']);
    expect(lines).toContain('needs-review 1');
    expect(lines).toContain(
      `needs-review: the run stopped at an effect whose outcome is unknown (${key}), recorded failed / effect-needs-review: the slot is not done; check the provider, then \`cronfence effects --job merchant-settlement\` and \`cronfence effects resolve\`, then re-run the date.`,
    );
  });

  it('refuses to invoke the deployed function while reading DynamoDB Local, before sending anything', async () => {
    const r = await backfill('daily-report', '2026-11-10');
    expect(r).toMatchObject({
      code: 2,
      stdout: '',
      stderr: `cronfence: invalid --local "(not given)": the run records are read from DynamoDB Local (${stack.endpoint}, from ${statePath()}) but the runs would be sent to the deployed function in AWS; pass --local to run the handler here, --region/--profile to use AWS for both, or --invoke-aws to mix them on purpose\n`,
    });
  });
});

describe('closing the terminal', () => {
  it('SIGHUP to its process group ends the hold with the clean-up of Ctrl-C: services stopped, state file removed', async () => {
    const pid = start.pid as number;
    process.kill(-pid, 'SIGHUP'); // what closing the terminal does (tsx, its parent, just dies of it)
    await startExit;
    const deadline = Date.now() + 50_000;
    while (groupAlive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
    expect(groupAlive(pid)).toBe(false);
    expect(startOut).toContain('\nSIGHUP: stopping\n');
    expect(startOut).toMatch(/Payment service stopped \(\d+ operations executed\)/);
    expect(existsSync(statePath())).toBe(false);
  }, 60_000);
});
