/**
 * The deadline holds whatever the network does (integ: DynamoDB Local, virtual time). A job with
 * `timeoutSeconds: 6` and a 5 s lease; its first renewal hangs in the network (the request is held
 * by the fault injector and never answered); the body sleeps 7 s without watching `ctx.signal`.
 * The lease keeper's watchdog aborts the run at the deadline margin (2 s before the Lambda deadline)
 * and the run is recorded `failed / deadline` before Lambda's timeout would end the invocation.
 */
import { afterEach, beforeEach, describe, expect, inject, it } from 'vitest';
import { createDrillTables, type DrillTables } from '../../harness/drills/dynamo-env.js';
import { Stage } from '../../harness/drills/stage.js';
import { on } from '../../harness/faults/sdk-faults.js';
import { defineJob } from '../../lib/runtime/define-job.js';

const START = Date.parse('2026-06-01T03:00:00Z');
let tables: DrillTables;
beforeEach(async () => {
  tables = await createDrillTables(
    { endpoint: inject('dynamoEndpoint'), description: 'shared DynamoDB Local', stop: async () => undefined },
    [],
  );
}, 60_000);
afterEach(() => tables.drop());

describe('the deadline with a renewal hung in the network', () => {
  it('records failed / deadline at 4 s (the 2 s margin before the 6 s timeout), not succeeded at 7 s', async () => {
    const renewals: string[] = [];
    const stage = new Stage(START, (parts) =>
      tables.depsFor({
        ...parts,
        observe: (e) => {
          if (e.type === 'renew') renewals.push(`${Math.round(e.atMs - START)} ${e.ok}`);
          parts.observe(e);
        },
      }),
    );
    const a = stage.worker('A');
    const job = defineJob({
      name: 'deadline-hang',
      schedule: 'cron(0 3 * * ? *)',
      timeoutSeconds: 6,
      lease: { durationSeconds: 5 },
      // Ignores ctx.signal: only the runtime's race against the abort can end it in time.
      run: () => a.clock.sleep(7_000),
    });
    a.faults.add({
      name: 'first renewal hangs',
      match: on.renew,
      action: { kind: 'hold', release: new Promise<void>(() => undefined) },
      times: 1,
    });
    const result = stage.deliver(
      { worker: a, handler: job, job: 'deadline-hang', scheduledTimeMs: START, label: 'A' },
      0,
      undefined,
    );
    await stage.run();
    const r = await result;
    expect(r.summary).toMatchObject({ outcome: 'failed', reason: 'deadline', fence: 1 });
    const [record] = await tables.runRecords('deadline-hang');
    expect(record).toMatchObject({
      outcome: 'failed',
      reason: 'deadline',
      fence: 1,
      startedAtMs: START,
      finishedAtMs: START + 4_000,
    });
    // Before Lambda's timeout (6 s): the record is on AWS too.
    expect((record?.finishedAtMs as number) - START).toBeLessThan(6_000);
    // The hung renewal was given up after one renew period (5 s / 3) and retried 500 ms later.
    expect(renewals).toEqual(['3333 false', '3833 true']);
  }, 60_000);
});
