/**
 * The protocol declarations (unit): each operation's DynamoDB request is derived from its declaration,
 * with the condition text docs/design.md documents, and the tag the fault layer classifies it by.
 */
import { describe, expect, it } from 'vitest';
import { doneKey } from '../../../lib/core/lease.js';
import { effectInsert } from '../../../lib/store/protocol/effect-operations.js';
import { compileExpressions } from '../../../lib/store/protocol/expression.js';
import { claim, fencedWrite, release } from '../../../lib/store/protocol/operations.js';

const fc = { leaseKey: 'JOB#daily-report', runId: 'r2', fence: 7, nowMs: 1_000 };

describe('protocol declarations', () => {
  it('derives the claim request: condition, update with ADD fence, ALL_OLD, tagged claim', () => {
    const req = claim.request({
      table: 'lib',
      job: 'daily-report',
      runId: 'r1',
      slotId: '2026-03-01T02:00',
      nowMs: 1_000,
      leaseUntilMs: 61_000,
    });
    expect(req.tag).toEqual({
      op: 'claim',
      name: 'claim',
      table: 'lib',
      key: { pk: 'JOB#daily-report', sk: 'LEASE' },
      runId: 'r1',
    });
    const [w] = req.writes;
    if (w.kind !== 'update') throw new Error('claim is an update');
    const c = compileExpressions(w.condition, w.update);
    expect(c.ConditionExpression).toBe(
      '(attribute_not_exists(#leaseUntilMs) OR #leaseUntilMs < :v0) AND (attribute_not_exists(#pausedAtMs) OR #pausedUntilMs < :v1) AND (NOT contains(#doneSlots, :v2) AND NOT contains(#doneSlots, :v3))',
    );
    // The slot's compact done key first, then its plain id (a done set written before the keys).
    expect([c.ExpressionAttributeValues?.[':v2'], c.ExpressionAttributeValues?.[':v3']]).toEqual([
      doneKey('2026-03-01T02:00'),
      '2026-03-01T02:00',
    ]);
    expect(c.UpdateExpression).toMatch(
      /^SET #owner = :v4, .*#prevOwner = if_not_exists\(#owner, :v\d+\).* ADD #fence :v\d+$/,
    );
    expect(w.returnValues).toBe('ALL_OLD');
  });

  it('drops the done-set clause from a forced claim but keeps the pause clause', () => {
    const [w] = claim.request({
      table: 'lib',
      job: 'j',
      runId: 'r1',
      slotId: 's',
      nowMs: 1,
      leaseUntilMs: 2,
      force: true,
    }).writes;
    expect(compileExpressions(w.condition).ConditionExpression).toBe(
      '(attribute_not_exists(#leaseUntilMs) OR #leaseUntilMs < :v0) AND (attribute_not_exists(#pausedAtMs) OR #pausedUntilMs < :v1)',
    );
  });

  it('tags a release with its run and fence and conditions it on owner, fence and the running state', () => {
    const req = release.request({ table: 'lib', job: 'j', runId: 'r1', fence: 3, nowMs: 5 });
    expect(req.tag).toMatchObject({ op: 'release', runId: 'r1', fence: 3 });
    expect(compileExpressions(req.writes[0].condition)).toMatchObject({
      ConditionExpression: '#owner = :v0 AND #fence = :v1 AND #holderState = :v2',
      ExpressionAttributeValues: { ':v0': 'r1', ':v1': 3, ':v2': 'running' },
    });
  });

  it('names attributes that are not identifiers with placeholders and rejects reserved ones', () => {
    const req = fencedWrite.request({
      ref: { tableName: 'reports', key: { reportDate: '2026-03-01' } },
      attributes: { 'total-cents': 5 },
      fc,
    });
    const [w] = req.writes;
    if (w.kind !== 'update') throw new Error('fenced write is an update');
    expect(compileExpressions(w.condition, w.update).UpdateExpression).toBe(
      'SET #n4 = :v4, #fence = :v5, #fencedBy = :v6, #runId = :v7, #writtenAtMs = :v8',
    );
    // one fence attribute, whichever writer created the item; "unfenced" means "does not exist"; an
    // equal fence only from the same run (another run's equal fence: the lease's fences went back)
    expect(compileExpressions(w.condition, w.update).ConditionExpression).toBe(
      'attribute_not_exists(#reportDate) OR (#fencedBy = :v0 AND (#fence < :v1 OR (#fence = :v2 AND #runId = :v3)))',
    );
    expect(() =>
      fencedWrite.request({
        ref: { tableName: 'reports', key: { reportDate: 'x' } },
        attributes: { fence: 1 },
        fc,
      }),
    ).toThrow('attribute "fence" is reserved by cronfence');
  });

  it('makes an effect insert one transaction: the lease check, then the put', () => {
    const req = effectInsert.request({
      table: 'lib',
      job: 'pay',
      key: 'k1',
      fields: { requestHash: 'h', job: 'pay', provider: 'payments' },
      fc,
    });
    expect(req.writes.map((w) => `${w.kind} ${String(w.key.pk)}`)).toEqual([
      'check JOB#daily-report',
      'put EFFECT#pay#k1',
    ]);
    expect(req.tag).toMatchObject({ op: 'effect', name: 'effect-insert', runId: 'r2', fence: 7 });
  });
});
