/**
 * unit: the slots waiting in a lease's buffer (overlap buffer-*) as `cronfence lease` and `cronfence
 * jobs` show them — decoded from the lease item's compact done keys to slot ids, in slot order: the
 * lease view's `waiting` and its `waiting` row, and the jobs row's `waiting` with its WAITING column.
 */
import { describe, expect, it } from 'vitest';
import { jobsText } from '../../../cli/jobs.js';
import { leaseText } from '../../../cli/lease.js';
import { doneKey, type LeaseItem } from '../../../lib/core/lease.js';
import { defineJob } from '../../../lib/runtime/define-job.js';
import { jobRow } from '../../../operate/jobs.js';
import { leaseView } from '../../../operate/lease.js';

const NOW = Date.parse('2026-05-01T10:10:00Z');
const WAITING = ['2026-05-01T10:06:00Z', '2026-05-01T10:03:00Z', '2026-05-01T10:09:00Z'];
const item: LeaseItem = {
  owner: 'run-1000',
  fence: 7,
  slot: '2026-05-01T10:00:00Z',
  holderState: 'running',
  leaseUntilMs: Date.parse('2026-05-01T10:15:00Z'),
  acquiredAtMs: Date.parse('2026-05-01T10:00:00Z'),
  buffered: new Set(WAITING.map(doneKey)),
} as LeaseItem;
const settle = defineJob({
  name: 'settle',
  schedule: 'rate(3 minutes)',
  lease: { durationSeconds: 900 },
  timeoutSeconds: 900,
  overlap: { policy: 'buffer-all', maxBuffered: 3 },
  run: async () => undefined,
});

describe('waiting (buffered) slots', () => {
  it('are stored as compact keys and shown as slot ids in slot order by the lease view and its table', () => {
    expect([...(item.buffered ?? [])].sort()).toEqual(['0hn0grz', '0hn0guz', '0hn0gxz']);
    const v = leaseView('settle', undefined, item, NOW);
    expect(v.waiting).toEqual(['2026-05-01T10:03:00Z', '2026-05-01T10:06:00Z', '2026-05-01T10:09:00Z']);
    const row = leaseText(v, NOW, 10)
      .split('\n')
      .find((l) => l.startsWith('waiting'));
    expect(row?.split(/\s{2,}/)).toEqual([
      'waiting',
      '2026-05-01T10:03:00Z, 2026-05-01T10:06:00Z, 2026-05-01T10:09:00Z (buffered: run after the holder)',
    ]);
  });

  it('are absent from a lease with none waiting', () => {
    const v = leaseView('settle', undefined, { ...item, buffered: undefined } as LeaseItem, NOW);
    expect(v.waiting).toBeUndefined();
    expect(leaseText(v, NOW, 10)).not.toMatch(/^waiting/m);
  });

  it('are counted in the jobs row and its WAITING column', () => {
    const rows = [
      jobRow(settle, item, [], NOW, 0),
      jobRow(settle, { ...item, buffered: undefined } as LeaseItem, [], NOW, 0),
    ];
    expect(rows.map((r) => r.waiting)).toEqual([
      ['2026-05-01T10:03:00Z', '2026-05-01T10:06:00Z', '2026-05-01T10:09:00Z'],
      [],
    ]);
    const [head, _rule, ...lines] = jobsText(rows).split('\n');
    const columns = head?.split(/\s{2,}/) ?? [];
    expect(columns.slice(-3)).toEqual(['HOLDER', 'WAITING', 'PROBLEMS 7D']);
    expect(lines.map((l) => l.split(/\s{2,}/).slice(-3))).toEqual([
      ['run-1000 (fence 7)', '3', '0'],
      ['run-1000 (fence 7)', '-', '0'],
    ]);
  });
});
