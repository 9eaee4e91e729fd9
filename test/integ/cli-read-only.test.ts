/**
 * The operations that only read records (`runs`, `lease`, `effects`, `problems`) work from the job's
 * name alone (integ, on DynamoDB Local): on the operator API they return exactly the same views with
 * the job registry, with no jobs, and with a jobs loader that throws (never called); through the
 * binary, `runs` prints the same in the repository, with no jobs module and with one that cannot be
 * loaded. A sharded job's lease items record the shard count, so `lease` lists every shard without
 * the job's code.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { cliMessage } from '../../cli/flags.js';
import { deliver } from '../../harness/local/scheduler-emulator.js';
import { defineJob, type JobHandler } from '../../lib/runtime/define-job.js';
import type { RuntimeDeps } from '../../lib/runtime/deps.js';
import { InProcessShardDispatcher } from '../../lib/runtime/fan-out.js';
import { DynamoLeaseStore } from '../../lib/store/lease-store.js';
import type { Operator } from '../../operate/operator.js';
import { type LocalStack, localStack } from '../helpers/local-stack.js';
import { cli, stackEnv } from './cli-harness.js';
import { operatorOn, rejection } from './operate-harness.js';

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
    const op = operatorOn(stack, { jobs: [] });
    try {
      const views = await op.job('ledger-export').lease();
      expect(views.map((v) => [v.shard, v.state, v.fence])).toEqual([
        [0, 'released', 1],
        [1, 'released', 1],
        [2, 'released', 1],
      ]);
      const [one] = await op.job('ledger-export').lease({ shard: 2 });
      expect(one?.shard).toBe(2);
      const past = await rejection(op.job('ledger-export').lease({ shard: 3 }));
      expect([past.message, cliMessage(past)]).toEqual([
        'invalid shard 3: job ledger-export has 3 shards: 0..2',
        'invalid --shard 3: job ledger-export has 3 shards: 0..2',
      ]);
    } finally {
      op.close();
    }
  });

  it.each([
    ['runs', (o: Operator) => o.job('ledger-export').runs()],
    ['lease', (o: Operator) => o.job('ledger-export').lease()],
    ['lease of a never-claimed job', (o: Operator) => o.job('daily-report').lease()],
    ['effects', (o: Operator) => o.job('ledger-export').effects()],
    ['problems', (o: Operator) => o.problems()],
  ])(
    '%s returns the same with the registry, with no jobs and with a loader that throws',
    async (_n, read) => {
      let loads = 0;
      const throwing = async () => {
        loads++;
        throw new Error('jobs module must not be imported');
      };
      const ops = [operatorOn(stack), operatorOn(stack, { jobs: [] }), operatorOn(stack, { jobs: throwing })];
      try {
        const [withRegistry, ...others] = await Promise.all(ops.map((o): Promise<unknown> => read(o)));
        for (const v of others) expect(v).toEqual(withRegistry);
        expect(loads).toBe(0);
        if (_n === 'runs') expect(JSON.stringify(withRegistry)).toMatch(/succeeded/);
      } finally {
        for (const o of ops) o.close();
      }
    },
  );

  it('runs through the binary prints the same with the registry, with no jobs module and with an unloadable one', async () => {
    const env = stackEnv(stack);
    const args = ['runs', 'ledger-export'];
    const withRegistry = await cli(args, env);
    expect(withRegistry.code, withRegistry.stderr).toBe(0);
    expect(withRegistry.stdout).toMatch(/succeeded/);
    for (const cwd of [bare, broken]) expect(await cli(args, env, cwd)).toEqual(withRegistry);
  });

  it('an unknown job reads as nothing recorded, naming the table', async () => {
    const r = await cli(['runs', 'no-such-job'], stackEnv(stack), bare);
    expect(r).toEqual({
      code: 0,
      stdout: `No run records for no-such-job in table ${stack.tableName} match.\n`,
      stderr: '',
    });
    // effects takes no job code either: an unknown job lists nothing, as docs/operations.md says.
    const op = operatorOn(stack, { jobs: [] });
    try {
      expect(await op.job('no-such-job').effects()).toEqual([]);
    } finally {
      op.close();
    }
  });
});
