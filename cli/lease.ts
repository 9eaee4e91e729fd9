/**
 * `cronfence lease <job>` (`JobHandle.lease`): who holds the job's lease (or held it last), its
 * fence, until when, the slots waiting in its buffer (overlap buffer-*), and the recently succeeded
 * slots the lease item remembers. No job code.
 */
import type { Command } from 'commander';
import { iso } from '../operate/input.js';
import type { LeaseView } from '../operate/lease.js';
import { intArg, jobNameArg } from './args.js';
import { type OperatorFlags, operatorAction, withConnectionOptions } from './command.js';
import { cell, table } from './output.js';

interface LeaseFlags extends OperatorFlags {
  readonly shard?: number;
  readonly slots: number;
}

/** A lease view as `cronfence lease` prints it: one FIELD VALUE table (`slots`: succeeded slots listed). */
export function leaseText(v: LeaseView, nowMs: number, slots: number): string {
  const name = v.shard === undefined ? v.job : `${v.job} (shard ${v.shard})`;
  if (v.state === 'never-claimed') return `${name}: no lease item yet (never claimed)`;
  const until = v.leaseUntilMs ?? 0;
  const status =
    v.state === 'held'
      ? `held, ${Math.ceil((until - nowMs) / 1000)}s left`
      : v.state === 'expired'
        ? `expired ${Math.round((nowMs - until) / 1000)}s ago without release (next claim marks the run abandoned)`
        : 'released';
  const done = v.recentlySucceededSlots;
  const rows: [string, string][] = [
    ['job', name],
    ['state', status],
    [
      'holder',
      `${cell(v.holder)}${v.slot ? ` (slot ${v.slot}${v.trigger ? `, ${v.trigger}${v.requestedBy ? ` by ${v.requestedBy}` : ''}` : ''})` : ''}`,
    ],
    // Overlap buffer-*: the slots queued behind the holder, started by its release or the sweeper.
    ...(v.waiting
      ? [['waiting', `${v.waiting.join(', ')} (buffered: run after the holder)`] as [string, string]]
      : []),
    ['fence', cell(v.fence)],
    ['leaseUntil', v.state === 'released' ? 'released' : cell(v.leaseUntil)],
    ['lastSucceeded', cell(v.lastSucceeded)],
    ['acquiredAt', iso(v.acquiredAtMs)],
    ['renewedAt', iso(v.renewedAtMs)],
    ['releasedAt', iso(v.releasedAtMs)],
    ['lambdaRequestId', cell(v.lambdaRequestId)],
    [
      'succeeded slots',
      done.length === 0
        ? '-'
        : `${done.slice(0, slots).join(', ')}${done.length > slots ? ` (+${done.length - slots} older)` : ''}`,
    ],
  ];
  return table(
    rows,
    [
      { header: 'FIELD', cell: ([k]) => k },
      { header: 'VALUE', cell: ([, val]) => val, max: Number.POSITIVE_INFINITY },
    ],
    { header: false },
  );
}

/** Register `lease` on the program. It reads the table only: no job code is imported. */
export function registerLease(program: Command): void {
  const cmd = program
    .command('lease')
    .argument('<job>', 'job name', jobNameArg('<job>'))
    .description("Show a job's lease: holder, fence, leaseUntil and recently succeeded slots")
    .option('--shard <n>', 'only this shard of a sharded job', intArg('--shard', 0, 999))
    .option('--slots <n>', 'succeeded slots to list in the table', intArg('--slots', 1, 1000), 10);
  withConnectionOptions(cmd).action(
    operatorAction(undefined, async (ops, flags: LeaseFlags, job: string) => {
      const views = await ops.job(job).lease({ ...(flags.shard !== undefined && { shard: flags.shard }) });
      const nowMs = ops.now();
      return {
        json: views.length === 1 ? views[0] : views,
        text: () => views.map((v) => leaseText(v, nowMs, flags.slots)).join('\n\n'),
      };
    }),
  );
}
