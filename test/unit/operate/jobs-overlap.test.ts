/**
 * unit: `cronfence jobs` and the operator API show each job's overlap policy as one token
 * (`buffer-all(4)`, `replace(>300s)`): the row built from the job's code, and the table's column.
 */
import { describe, expect, it } from 'vitest';
import { jobsText } from '../../../cli/jobs.js';
import { defineJob } from '../../../lib/runtime/define-job.js';
import { jobRow } from '../../../operate/jobs.js';

const NOW = Date.parse('2026-01-15T00:00:00Z');
const handler = (name: string, overlap: unknown) =>
  defineJob({
    name,
    schedule: 'rate(5 minutes)',
    lease: { durationSeconds: 60 },
    timeoutSeconds: 600,
    ...(overlap !== undefined && { overlap: overlap as never }),
    run: async () => undefined,
  });

describe('jobs: the overlap policy', () => {
  it.each([
    [undefined, 'skip'],
    ['buffer-one', 'buffer-one'],
    [{ policy: 'buffer-all', maxBuffered: 4 }, 'buffer-all(4)'],
    ['replace', 'replace'],
    [{ policy: 'replace', replaceAfterSeconds: 300 }, 'replace(>300s)'],
    ['after-previous', 'after-previous(problem >600s)'],
    [{ policy: 'after-previous', waitingProblemAfterSeconds: 3600 }, 'after-previous(problem >3600s)'],
  ])('shows %j as %s', (overlap, label) => {
    expect(jobRow(handler('settle', overlap), undefined, [], NOW, 0).overlap).toBe(label);
  });

  it('prints the policy in its own column', () => {
    const rows = [
      jobRow(handler('settle', { policy: 'buffer-all', maxBuffered: 4 }), undefined, [], NOW, 0),
      jobRow(handler('ledger', { policy: 'replace', replaceAfterSeconds: 300 }), undefined, [], NOW, 2),
    ];
    const [head, _rule, ...lines] = jobsText(rows).split('\n');
    expect(head?.split(/\s{2,}/).slice(0, 4)).toEqual(['JOB', 'SCHEDULE', 'ZONE', 'OVERLAP']);
    expect(lines.map((l) => l.split(/\s{2,}/).slice(0, 4))).toEqual([
      ['settle', 'rate(5 minutes)', 'UTC', 'buffer-all(4)'],
      ['ledger', 'rate(5 minutes)', 'UTC', 'replace(>300s)'],
    ]);
  });
});
