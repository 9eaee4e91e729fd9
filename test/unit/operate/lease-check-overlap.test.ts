/**
 * unit: what the lease check before a manual run (`trigger`, `backfill`) says each overlap policy would
 * record under a live holder — the refusal's reason, or none when the policy lets a run go ahead
 * (buffer-* queue behind the holder; replace displaces a holder of an older slot than one asked for).
 */
import { describe, expect, it } from 'vitest';
import { overlapOf } from '../../../lib/core/overlap.js';
import { skippedUnderHolder } from '../../../operate/backfill-guard.js';

const HOLDER = '2026-05-01T10:00:00Z';
const OLDER = ['2026-05-01T09:54:00Z', '2026-05-01T09:57:00Z'];
const NEWER = ['2026-05-01T09:57:00Z', '2026-05-01T10:03:00Z'];
const REPLACE_REFUSED = 'skipped / overlap (overlap replace displaces a holder of an older slot only)';

describe('the lease check under each overlap policy', () => {
  it.each<[string, unknown, readonly string[], string | undefined]>([
    ['skip', undefined, NEWER, 'skipped / lease-held'],
    ['buffer-one', 'buffer-one', OLDER, undefined],
    ['buffer-all', { policy: 'buffer-all', maxBuffered: 3 }, OLDER, undefined],
    ['replace, no slot newer', 'replace', OLDER, REPLACE_REFUSED],
    ['replace, a slot newer', 'replace', NEWER, undefined],
    ['after-previous', 'after-previous', NEWER, 'skipped / waiting-for-previous (overlap after-previous)'],
  ])('%s: %j', (_name, overlap, slots, expected) => {
    expect(skippedUnderHolder(overlapOf({ overlap }), HOLDER, slots)).toBe(expected);
  });

  it('refuses under replace when the holder names no slot', () => {
    expect(skippedUnderHolder(overlapOf({ overlap: 'replace' }), undefined, NEWER)).toBe(REPLACE_REFUSED);
  });
});
