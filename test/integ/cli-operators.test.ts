/**
 * The operators' commands end to end (integ: the binary as a subprocess on DynamoDB Local): a
 * `trigger --local` prints its manual run record as JSON and exits 0, `resume` of a job that is not
 * paused prints one line and exits 1, and `pause` with an empty note exits 2. What each control does
 * is asserted in process, on the operator API (operate-controls.test.ts). `report`:
 * report-chromium.test.ts.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { type LocalStack, localStack } from '../helpers/local-stack.js';
import { cli, json, stackEnv } from './cli-harness.js';

let stack: LocalStack;
let env: Record<string, string>;

beforeAll(async () => {
  stack = await localStack();
  env = stackEnv(stack, { CRONFENCE_OPERATOR: 'ops-alice' });
});

describe('cronfence trigger, resume, pause', () => {
  it('triggers one manual run (exit 0), then refuses to resume a job that is not paused (exit 1)', async () => {
    const ran = await cli(['trigger', 'daily-report', '--local', '--json', '--reason', 'smoke'], env);
    expect(ran.code, ran.stderr).toBe(0);
    const rec = json<Record<string, unknown>>(ran);
    expect([rec.trigger, rec.outcome, rec.requestedBy, rec.requestReason]).toEqual([
      'manual',
      'succeeded',
      'ops-alice',
      'smoke',
    ]);
    const again = await cli(['resume', 'daily-report'], env);
    expect([again.code, again.stdout, again.stderr]).toEqual([
      1,
      '',
      'cronfence: job daily-report is not paused: nothing changed\n',
    ]);
  }, 120_000);

  it('refuses an empty pause note with exit 2 and a message naming the field', async () => {
    const r = await cli(['pause', 'daily-report', '--note', ''], env);
    expect([r.code, r.stdout]).toEqual([2, '']);
    expect(r.stderr).toContain('invalid --note "": must be 1 to 200 characters');
  }, 60_000);
});
