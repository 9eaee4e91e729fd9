/**
 * unit: what `cronfence check` (and synth) says about a job's overlap policy — the label, the line of
 * consequences, the warnings about risky combinations — and how `cronfence check` renders it and finds
 * the providers a jobs module exports.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { renderJobCheck } from '../../cli/check.js';
import { checkJob } from '../../lib/core/job-check.js';
import { checkJobs, providersOf } from '../../operate/check.js';
import { projectJobs } from '../../operate/registry.js';

const NOW = Date.parse('2026-01-15T00:00:00Z');
const job = (overlap: unknown, extra: Record<string, unknown> = {}) => ({
  name: 'settle',
  schedule: 'rate(5 minutes)',
  lease: { durationSeconds: 30 },
  timeoutSeconds: 120,
  overlap,
  ...extra,
});
const catchUpOf = (mode: string) => ({ mode, windowHours: 24, maxSlotsPerSweep: 10 });
const overlapWarnings = (c: ReturnType<typeof checkJob>) =>
  c.warnings.filter((w) => w.code.startsWith('overlap')).map((w) => `${w.code}: ${w.message}`);

describe('checkJob: the overlap policy', () => {
  it.each([
    [
      undefined,
      'skip',
      'skip: an occurrence arriving while another holds the lease is recorded skipped / overlap and never runs (catchUp.mode = none)',
    ],
    [
      'buffer-one',
      'buffer-one',
      'buffer-one: an occurrence arriving while another holds the lease is recorded buffered and runs when the holder releases; a second arrival meanwhile is skipped / buffer-full (a problem: SlotNotRun alarm)',
    ],
    [
      { policy: 'buffer-all', maxBuffered: 4 },
      'buffer-all(4)',
      'buffer-all(4): up to 4 occurrences arriving while another holds the lease are recorded buffered and run one after another in slot order; one more is skipped / buffer-full (a problem: SlotNotRun alarm)',
    ],
    [
      { policy: 'replace', replaceAfterSeconds: 90 },
      'replace(>90s)',
      'replace(>90s): the newest occurrence takes the lease from a holder that acquired it more than 90 s ago by raising the fence; the displaced run is recorded stale / replaced (RunStale alarm), its later writes and sends are refused (each fencedPut and insertOnce checks the lease in the same transaction: 4 WCU for a row under 1 KB instead of 1), and an effect it left sending is reconciled by lookup or idempotency key, else needs review; an arrival meeting a younger holder is skipped / overlap',
    ],
    [
      'after-previous',
      'after-previous(problem >600s)',
      'after-previous(problem >600s): an occurrence runs only after the previous one succeeded; until then it is recorded skipped / waiting-for-previous and the sweeper starts it once its predecessor succeeds; waiting more than 600 s is a problem (skipped / waiting-too-long: SlotNotRun alarm); the chain starts at the first occurrence that succeeds: an earlier one never runs after it (set catchUp.since to start it at a known slot)',
    ],
  ])('explains %j as %s', (overlap, label, consequence) => {
    const c = checkJob(
      job(overlap, { catchUp: catchUpOf(overlap === 'after-previous' ? 'all' : 'none') }),
      NOW,
    );
    expect(c.errors).toEqual([]);
    expect(c.overlap).toEqual({ label, consequence });
    expect(overlapWarnings(c)).toEqual([]);
  });

  it('says when catch-up runs a skipped occurrence later', () => {
    const c = checkJob(job('skip', { catchUp: catchUpOf('all') }), NOW);
    expect(c.overlap?.consequence).toBe(
      "skip: an occurrence arriving while another holds the lease is recorded skipped / overlap; the sweeper's catch-up (mode all) runs it later",
    );
  });

  it('warns about replace with a provider that has neither idempotency keys nor a lookup', () => {
    const providers = [
      { name: 'ledger', idempotencyKeys: false, lookup: false },
      { name: 'payments', idempotencyKeys: true, lookup: false },
      { name: 'mailer', idempotencyKeys: false, lookup: true },
    ];
    expect(overlapWarnings(checkJob(job('replace', { timeoutSeconds: 60 }), NOW, 5, { providers }))).toEqual([
      'overlap-replace-provider: overlap = replace with provider ledger, which has neither idempotency keys nor a lookup: an effect a displaced run left sending cannot be reconciled and goes to needs-review (an operator decides, nothing is resent); give the provider idempotency keys or a lookup, or use buffer-one',
    ]);
    expect(overlapWarnings(checkJob(job('buffer-one'), NOW, 5, { providers }))).toEqual([]);
  });

  it('warns about replace at any age with a timeout above the period', () => {
    expect(overlapWarnings(checkJob(job('replace', { timeoutSeconds: 600 }), NOW))).toEqual([
      'overlap-replace-period: overlap = replace with timeoutSeconds = 600 above the 5 min period: a run still going when the next occurrence arrives is displaced (stale / replaced), so a run longer than the period never succeeds; set overlap.replaceAfterSeconds to the longest run you accept',
    ]);
    const older = job({ policy: 'replace', replaceAfterSeconds: 500 }, { timeoutSeconds: 600 });
    expect(overlapWarnings(checkJob(older, NOW))).toEqual([]);
  });

  it('warns about buffer-all with more buffered runs than a stuck holder meets', () => {
    const big = job({ policy: 'buffer-all', maxBuffered: 12 }, { timeoutSeconds: 900 });
    expect(overlapWarnings(checkJob(big, NOW))).toEqual([
      'overlap-buffer-backlog: overlap = buffer-all(12) with timeoutSeconds = 900 and a 5 min period: the last buffered occurrence may start 3 h after its slot (12 × 900 s); a holder stuck for its whole timeout meets 3 arrivals, so a larger buffer only keeps every run behind schedule while runs overrun the period; lower maxBuffered or use buffer-one',
    ]);
    const fits = job({ policy: 'buffer-all', maxBuffered: 3 }, { timeoutSeconds: 900 });
    expect(overlapWarnings(checkJob(fits, NOW))).toEqual([]);
  });

  it.each([
    ['none', undefined],
    ['latest', 'latest'],
  ])('warns about after-previous with catch-up %s', (mode, catchUp) => {
    const c = checkJob(job('after-previous', catchUp ? { catchUp: catchUpOf(catchUp) } : {}), NOW);
    expect(overlapWarnings(c)).toEqual([
      `overlap-after-previous-catch-up: overlap = after-previous(problem >600s) with catchUp.mode = ${mode}: a failed or missed occurrence is never re-run, so every later occurrence waits behind it (skipped / waiting-for-previous, then waiting-too-long) until an operator triggers it; use catchUp.mode = all`,
    ]);
  });

  it('renders the policy line under the job in `cronfence check`', () => {
    const text = renderJobCheck(checkJob(job('buffer-one'), NOW));
    expect(text.split('\n').slice(0, 3)).toEqual([
      'settle  rate(5 minutes)  UTC',
      '  business date: the local date of each slot',
      '  overlap buffer-one: an occurrence arriving while another holds the lease is recorded buffered and runs when the holder releases; a second arrival meanwhile is skipped / buffer-full (a problem: SlotNotRun alarm)',
    ]);
  });
});

describe('providersOf', () => {
  it('finds the effect providers a jobs module exports, with their reconciliation means', () => {
    const send = async () => ({ kind: 'unknown' as const, why: 'test' });
    const mod = {
      handler: () => undefined,
      ledger: { name: 'ledger', idempotencyKeys: false, send },
      payments: {
        name: 'payments',
        idempotencyKeys: true,
        keyRetentionMs: 1,
        send,
        lookup: async () => undefined,
      },
      config: { name: 'not a provider', idempotencyKeys: 'yes' },
      nothing: null,
    };
    expect(providersOf(mod)).toEqual([
      { name: 'ledger', idempotencyKeys: false, lookup: false },
      { name: 'payments', idempotencyKeys: true, lookup: true },
    ]);
  });
});

describe('cronfence check of the configured jobs module', () => {
  it('finds its providers as --jobs does, and warns about replace with one lacking keys and lookup', async () => {
    const file = fileURLToPath(new URL('../helpers/check-jobs/replace-provider.ts', import.meta.url));
    const report = await checkJobs(undefined, projectJobs(file), NOW);
    expect(report.jobs.map((c) => overlapWarnings(c).map((w) => w.slice(0, w.indexOf(':'))))).toEqual([
      ['overlap-replace-provider'],
    ]);
    expect(overlapWarnings(report.jobs[0] as ReturnType<typeof checkJob>)[0]).toContain('provider ledger');
  }, 60_000);
});
