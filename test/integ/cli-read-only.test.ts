/**
 * The commands that only read records (`runs`, `lease`, `effects`) work from the job's name alone
 * (integ: the CLI as a subprocess on DynamoDB Local): with no jobs module, and with one that cannot be
 * loaded, they print exactly what they print in the repository with its job registry. A sharded
 * job's lease items record the shard count, so `lease` lists every shard without the job's code.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { deliver } from '../../harness/local/scheduler-emulator.js';
import { defineJob, type JobHandler } from '../../lib/runtime/define-job.js';
import type { RuntimeDeps } from '../../lib/runtime/deps.js';
import { InProcessShardDispatcher } from '../../lib/runtime/fan-out.js';
import { DynamoLeaseStore } from '../../lib/store/lease-store.js';
import { type LocalStack, localStack } from '../helpers/local-stack.js';
import { cli, json, stackEnv } from './cli-harness.js';

const SLOT_MS = Date.parse('2026-03-28T17:00:00Z');
let stack: LocalStack;
/** A project whose config names a jobs module that throws at import. */
let broken: string;
/** A directory with no config and no registry: no jobs module at all. */
let bare: string;

function sharded(): JobHandler {
  const w = stack.worker();
  let handler: JobHandler | undefined;
  const dispatcher = new InProcessShardDispatcher(() => handler as JobHandler, { copies: 1 });
  handler = defineJob({
    name: 'ledger-export',
    schedule: 'cron(0 1 * * ? *)',
    timeZone: 'Asia/Shanghai',
    lease: { durationSeconds: 60 },
    shards: 3,
    run: async () => {},
  }).withDeps(() => ({ ...w.deps, dispatchShards: dispatcher }) as RuntimeDeps);
  return handler;
}

beforeAll(async () => {
  stack = await localStack();
  broken = mkdtempSync(join(tmpdir(), 'cf-broken-jobs-'));
  writeFileSync(join(broken, 'jobs.mjs'), 'throw new Error("jobs module must not be imported");\n');
  writeFileSync(join(broken, 'cronfence.config.json'), JSON.stringify({ jobs: './jobs.mjs' }));
  bare = mkdtempSync(join(tmpdir(), 'cf-no-jobs-'));
  const h = sharded();
  await deliver(h, { job: 'ledger-export', scheduledTimeMs: SLOT_MS, awsRequestId: 'r-1', label: 'a' });
}, 120_000);

describe('runs, lease and effects without job code', () => {
  it('records the shard count (3) on the fan-out lease and on every shard lease', async () => {
    const store = new DynamoLeaseStore(stack.doc, stack.tableName);
    const items = await Promise.all(
      [undefined, 0, 1, 2].map((shard) =>
        store.get({ job: 'ledger-export', ...(shard !== undefined && { shard }) }),
      ),
    );
    expect(items.map((i) => i?.shards)).toEqual([3, 3, 3, 3]);
  });

  it('lease lists every shard of a job no registry knows', async () => {
    const r = await cli(['lease', 'ledger-export', '--json'], stackEnv(stack), bare);
    expect(r.stderr).toBe('');
    const views = json<{ shard: number; state: string; fence: number }[]>(r);
    expect(views.map((v) => [v.shard, v.state, v.fence])).toEqual([
      [0, 'released', 1],
      [1, 'released', 1],
      [2, 'released', 1],
    ]);
    const one = await cli(['lease', 'ledger-export', '--shard', '2', '--json'], stackEnv(stack), bare);
    expect(json<{ shard: number }>(one).shard).toBe(2);
    const past = await cli(['lease', 'ledger-export', '--shard', '3'], stackEnv(stack), bare);
    expect(past).toEqual({
      code: 2,
      stdout: '',
      stderr: 'cronfence: invalid --shard 3: job ledger-export has 3 shards: 0..2\n',
    });
  });

  it.each([
    ['runs', ['runs', 'ledger-export']],
    ['runs --json', ['runs', 'ledger-export', '--json']],
    ['lease', ['lease', 'ledger-export']],
    ['lease of a never-claimed job', ['lease', 'daily-report']],
    ['effects', ['effects', '--job', 'ledger-export']],
    ['runs --failed', ['runs', '--failed']],
  ])(
    '%s prints the same with the registry, with no jobs module and with an unloadable one',
    async (_n, args) => {
      const env = stackEnv(stack);
      const withRegistry = await cli(args, env);
      expect(withRegistry.code, withRegistry.stderr).toBe(0);
      // `lease` shows seconds left and ages, computed from the clock: compare without them.
      const strip = (s: string) => s.replace(/\d+s (left|ago)/g, 'Ns $1');
      for (const cwd of [bare, broken]) {
        const r = await cli(args, env, cwd);
        expect({ ...r, stdout: strip(r.stdout) }).toEqual({
          ...withRegistry,
          stdout: strip(withRegistry.stdout),
        });
      }
      if (args[0] === 'runs' && args[1] === 'ledger-export') expect(withRegistry.stdout).toMatch(/succeeded/);
    },
  );

  it('an unknown job reads as nothing recorded, naming the table', async () => {
    const r = await cli(['runs', 'no-such-job'], stackEnv(stack), bare);
    expect(r).toEqual({
      code: 0,
      stdout: `No run records for no-such-job in table ${stack.tableName} match.\n`,
      stderr: '',
    });
    // effects takes no job code either: an unknown --job lists nothing (exit 0), as docs/operations.md says.
    expect(await cli(['effects', '--job', 'no-such-job'], stackEnv(stack), bare)).toEqual({
      code: 0,
      stdout: 'No effects in needs-review or unsettled.\n',
      stderr: '',
    });
  });
});
