/** unit: effects under a restore mark (lib/runtime/restore-guard.ts) — what is sent and what is answered unknown. */
import { describe, expect, it } from 'vitest';
import type { EffectProvider } from '../../lib/core/effects.js';
import { guardRestored } from '../../lib/runtime/restore-guard.js';

const RESTORE_POINT = Date.parse('2026-11-01T12:00:00Z');
const clockAt = (iso: string) => ({ now: () => Date.parse(iso) });

function provider(caps: { keys: boolean; lookup: boolean; keyRetentionMs?: number }) {
  const sent: string[] = [];
  const p: EffectProvider<{ n: number }> = {
    name: 'bank',
    idempotencyKeys: caps.keys,
    ...(caps.keyRetentionMs !== undefined && { keyRetentionMs: caps.keyRetentionMs }),
    ...(caps.lookup && { lookup: async () => ({ found: false as const }), lookupSettleMs: 0 }),
    send: async (key) => {
      sent.push(key);
      return { kind: 'succeeded', providerRef: `ref-${key}`, response: {} };
    },
  };
  return { p, sent };
}

const why =
  'not sent: the library table was restored (restore point 2026-11-01T12:00:00.000Z), so an earlier send of this effect may have left no record; a lookup or an operator must decide';

describe('guardRestored', () => {
  it('answers unknown without sending for a provider with neither keys nor lookup', async () => {
    const { p, sent } = provider({ keys: false, lookup: false });
    const g = guardRestored(p, RESTORE_POINT, clockAt('2026-11-02T00:00:00Z'));
    expect(await g.send('k1', { n: 1 })).toEqual({ kind: 'unknown', why });
    expect(sent).toEqual([]);
    expect({ name: g.name, idempotencyKeys: g.idempotencyKeys }).toEqual({
      name: 'bank',
      idempotencyKeys: false,
    });
  });

  it.each([
    [
      'sends with the key while the restore point is within half the key retention',
      '2026-11-01T23:59:00Z',
      ['k1'],
    ],
    [
      'answers unknown once half the key retention has passed since the restore point',
      '2026-11-02T00:00:00Z',
      [],
    ],
  ])('%s', async (_, now, expected) => {
    const { p, sent } = provider({ keys: true, lookup: false, keyRetentionMs: 86_400_000 });
    await guardRestored(p, RESTORE_POINT, clockAt(now)).send('k1', { n: 1 });
    expect(sent).toEqual(expected);
  });

  it('sends a lookup-only effect only after its own lookup found nothing', async () => {
    const { p, sent } = provider({ keys: false, lookup: true });
    const g = guardRestored(p, RESTORE_POINT, clockAt('2026-11-02T00:00:00Z'));
    expect((await g.send('k1', { n: 1 })).kind).toBe('unknown');
    expect(await g.lookup?.('k1')).toEqual({ found: false });
    expect((await g.send('k1', { n: 1 })).kind).toBe('succeeded');
    expect(sent).toEqual(['k1']);
    expect(g.lookupSettleMs).toBe(0);
  });
});
