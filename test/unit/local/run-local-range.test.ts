/** unit: the range `npm start` plays (defaults, inclusive ends, the occurrence limit). */
import { describe, expect, it } from 'vitest';
import { type LocalApp, resolveRange } from '../../../harness/local/run-local.js';
import { hourly } from '../../helpers/hourly-job.js';

const app: LocalApp = { handlers: [hourly], tables: [], verify: async () => [] };
const NOW = Date.parse('2026-11-30T12:34:56Z');
const DAY = 86_400_000;

describe('the range npm start plays', () => {
  it('defaults to the 3 days before now', () => {
    expect(resolveRange(app, {}, NOW)).toEqual({ fromMs: NOW - 3 * DAY, toMs: NOW });
  });

  it('with --to alone starts 3 days before --to (as the help says)', () => {
    const toMs = Date.parse('2026-04-01T23:59:59.999Z');
    expect(resolveRange(app, { toMs }, NOW)).toEqual({ fromMs: toMs - 3 * DAY, toMs });
  });

  it('with --from alone ends now', () => {
    const fromMs = Date.parse('2026-11-29T00:00:00Z');
    expect(resolveRange(app, { fromMs }, NOW)).toEqual({ fromMs, toMs: NOW });
  });

  it('accepts a range of one instant (both ends inclusive) and refuses an inverted one', () => {
    expect(resolveRange(app, { fromMs: NOW, toMs: NOW }, NOW)).toEqual({ fromMs: NOW, toMs: NOW });
    expect(() => resolveRange(app, { fromMs: NOW, toMs: NOW - 1 }, NOW)).toThrow(
      'invalid --to "2026-11-30T12:34:55.999Z": is before --from (2026-11-30T12:34:56.000Z)',
    );
  });

  it('counts every occurrence of the range (an hourly job: 24 a day), so 42 days need --yes', () => {
    const fromMs = Date.parse('2026-01-01T00:00:00Z');
    const toMs = fromMs + 42 * DAY - 1;
    expect(() => resolveRange(app, { fromMs, toMs }, NOW)).toThrow(
      'covers 1008 occurrences (more than 1000); add --yes to play them all',
    );
    expect(resolveRange(app, { fromMs, toMs, yes: true }, NOW)).toEqual({ fromMs, toMs });
    expect(() => resolveRange(app, { fromMs, toMs: fromMs + 41 * DAY - 1 }, NOW)).not.toThrow();
  });

  it('refuses a range in the future like backfill does, naming the flag and the value', () => {
    expect(() => resolveRange(app, { fromMs: NOW + 1 }, NOW)).toThrow(
      'invalid --from "2026-11-30T12:34:56.001Z": is in the future (now is 2026-11-30T12:34:56.000Z); npm start plays past occurrences only (backfill refuses the same)',
    );
    expect(() => resolveRange(app, { toMs: NOW + DAY }, NOW)).toThrow(
      'invalid --to "2026-12-01T12:34:56.000Z": is in the future (now is 2026-11-30T12:34:56.000Z); npm start plays past occurrences only (backfill refuses the same)',
    );
  });
});
