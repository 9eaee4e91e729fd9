/**
 * unit: a job handler exposes middy's `.use()` (in-memory store, virtual time): a user middleware runs
 * after cronfence claimed and before it recorded the run, sees the JobContext, and is carried to
 * `withDeps` copies; cronfence keeps its state under its own `request.internal` key.
 */
import { describe, expect, it } from 'vitest';
import { memoryBackend } from '../../harness/drills/explorer/backends.js';
import { Stage } from '../../harness/drills/stage.js';
import {
  defineJob,
  type JobHandler,
  type JobMiddleware,
  type JobOptions,
} from '../../lib/runtime/define-job.js';
import { INTERNAL_KEY } from '../../lib/runtime/middleware.js';

const T0 = Date.parse('2026-03-28T01:30:05Z');
const SLOT = Date.parse('2026-03-28T01:30:00Z');

/** A daily job at 01:30 UTC with a 60 s lease and a 120 s timeout, `run` its body. */
const dailyJob = (name: string, run: JobOptions['run']): JobHandler =>
  defineJob({
    name,
    schedule: 'cron(30 1 * * ? *)',
    lease: { durationSeconds: 60 },
    timeoutSeconds: 120,
    run,
  });

/**
 * A stage at T0 on an in-memory store read at the stage's virtual time, and `deliver`: `handler`'s
 * job at `slotMs`, by a new worker named `label`, at once.
 */
async function staged(handler: JobHandler) {
  let now = () => T0;
  const backend = await memoryBackend(() => now());
  const stage = new Stage(T0, (p) => backend.depsFor(p));
  now = () => stage.time.nowMs;
  const deliver = (label: string, slotMs: number) =>
    stage.deliver(
      { worker: stage.worker(label), handler, job: handler.job.name, scheduledTimeMs: slotMs, label },
      0,
    );
  return { backend, stage, deliver };
}

describe('defineJob(...).use()', () => {
  it('runs a user middleware between the claim and the run record, on withDeps copies too', async () => {
    const seen: string[] = [];
    const audit: JobMiddleware = {
      before: async (request) => {
        const internal = request.internal as Record<string, unknown>;
        seen.push(
          `before fence=${request.context.cronfence?.fence} internal=${Object.keys(internal).join(',')}`,
        );
      },
      after: async (request) => {
        seen.push(`after response=${String(request.response)}`);
      },
    };
    const handler = dailyJob('used', async () => {
      seen.push('run');
    }).use(audit);
    const { stage, deliver } = await staged(handler);
    const r = deliver('A', SLOT);
    await stage.run();
    const { summary } = await r;
    expect(summary).toMatchObject({ outcome: 'succeeded', fence: 1 });
    // middy runs `after` in reverse order: the user's before cronfence's, so the response is not set yet.
    expect(seen).toEqual([`before fence=1 internal=${INTERNAL_KEY}`, 'run', 'after response=undefined']);
  });
});

describe('defineJob(...) without middlewares of its own', () => {
  it('runs cronfence alone until .use() adds one, then runs the chain; a malformed one changes nothing', async () => {
    const seen: string[] = [];
    const handler = dailyJob('later', async (ctx) => {
      seen.push(`run fence=${ctx.fence}`);
    });
    const { stage, deliver } = await staged(handler);
    const first = deliver('A', SLOT);
    await stage.run();
    expect((await first).summary).toMatchObject({ outcome: 'succeeded', fence: 1 });

    expect(() => handler.use({} as JobMiddleware)).toThrow(
      'Middleware must be an object containing at least one key among "before", "after", "onError"',
    );
    expect(handler.use([])).toBe(handler);
    const same = handler.use({
      before: async (request) => {
        seen.push(`before fence=${request.context.cronfence?.fence}`);
      },
    });
    expect(same).toBe(handler);
    const second = deliver('B', SLOT - 86_400_000);
    await stage.run();
    expect((await second).summary).toMatchObject({ outcome: 'succeeded', fence: 2 });
    expect(seen).toEqual(['run fence=1', 'before fence=2', 'run fence=2']);
  });

  it('keeps an invocation in flight on the chain it started with, and takes a middleware as it was added', async () => {
    const seen: string[] = [];
    let held = false;
    let open = () => {};
    const gate = new Promise<void>((resolve) => {
      open = () => {
        held = false;
        resolve();
      };
    });
    let started = () => {};
    const bodyStarted = new Promise<void>((resolve) => {
      started = resolve;
    });
    const handler = dailyJob('inflight', async (ctx) => {
      seen.push(`run fence=${ctx.fence}`);
      if (ctx.fence === 1) {
        held = true;
        started();
        await gate;
      }
    });
    const { stage, deliver } = await staged(handler);
    // Virtual time waits while the first body is held (no renewal or deadline fires meanwhile).
    stage.alsoBusy.push(() => held);
    const first = deliver('A', SLOT);
    const running = stage.run();
    await bodyStarted;
    const audit: JobMiddleware = {
      after: async () => {
        seen.push('after as added');
      },
    };
    handler.use(audit);
    audit.after = async () => {
      seen.push('after as changed later');
    };
    handler.use({
      before: async () => {
        seen.push('second before');
      },
    });
    open();
    await running;
    expect((await first).summary).toMatchObject({ outcome: 'succeeded', fence: 1 });
    expect(seen).toEqual(['run fence=1']);

    const second = deliver('B', SLOT - 86_400_000);
    await stage.run();
    expect((await second).summary).toMatchObject({ outcome: 'succeeded', fence: 2 });
    expect(seen).toEqual(['run fence=1', 'second before', 'run fence=2', 'after as added']);
  });

  // What JobHandler.use documents: middy ends the chain at a middleware that returns a value (or throws
  // from onError), so cronfence's own after / onError never runs for that invocation: no record, and the
  // lease is not released (its keeper renews it while the process runs, up to the deadline).
  it.each([
    ['its before returns a value', { before: async () => 'EARLY' }, false, 'resolved EARLY'],
    ['its after returns a value', { after: async () => 'LATE' }, false, 'resolved LATE'],
    ['its onError returns a value', { onError: async () => 'SWALLOWED' }, true, 'resolved SWALLOWED'],
    [
      'its onError throws',
      {
        onError: async () => {
          throw new Error('from onError');
        },
      },
      true,
      'rejected from onError',
    ],
  ] as [string, JobMiddleware, boolean, string][])(
    'leaves the run unrecorded and the lease held when a job middleware ends the chain: %s',
    async (_case, own, bodyThrows, settled) => {
      const handler = dailyJob('ended', async () => {
        if (bodyThrows) throw new Error('body');
      }).use(own);
      const { backend, stage, deliver } = await staged(handler);
      const r = deliver('A', SLOT);
      await stage.run();
      const { summary, error } = (await r) as { summary?: unknown; error?: unknown };
      expect(
        error === undefined ? `resolved ${String(summary)}` : `rejected ${(error as Error).message}`,
      ).toBe(settled);
      expect(await backend.runRecords('ended')).toEqual([]);
      const lease = (await stage.worker('reader').deps.leases.get({ job: 'ended' })) as {
        fence?: number;
        leaseUntilMs?: number;
      };
      expect(lease.fence).toBe(1);
      // Not released: the lease keeper, never stopped, renewed it up to the invocation's deadline.
      expect(lease.leaseUntilMs).toBe(T0 + 121_000);
    },
  );
});
