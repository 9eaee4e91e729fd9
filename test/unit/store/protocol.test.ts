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
      /^SET #owner = :v4, #leaseUntilMs = :v5, #leaseUntil = :v6, .*#prevOwner = if_not_exists\(#owner, :v\d+\).* ADD #fence :v\d+ REMOVE #requestedBy$/,
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

  it('names attributes that are not identifiers with placeholders and refuses the bookkeeping prefix', () => {
    const req = fencedWrite.request({
      ref: { tableName: 'reports', key: { reportDate: '2026-03-01' } },
      attributes: { 'total-cents': 5, status: 'open' },
      fc,
    });
    const [w] = req.writes;
    if (w.kind !== 'update') throw new Error('fenced write is an update');
    const compiled = compileExpressions(w.condition, w.update);
    expect(compiled.UpdateExpression).toBe(
      'SET #n5 = :v4, #status = :v5, #n2 = :v6, #n1 = :v7, #n7 = :v8, #n8 = :v9',
    );
    // one fence, whichever writer created the item; an item without the prefixed fence is matched by
    // the names an earlier version wrote (fencedBy, fence); "unfenced" means "does not exist"
    expect(compiled.ConditionExpression).toBe(
      'attribute_not_exists(#reportDate) OR ((#n1 = :v0 AND #n2 <= :v1) OR (attribute_not_exists(#n2) AND #fencedBy = :v2 AND #fence <= :v3))',
    );
    expect(compiled.ExpressionAttributeNames).toEqual({
      '#reportDate': 'reportDate',
      '#n1': 'cronfence:lease',
      '#n2': 'cronfence:fence',
      '#fencedBy': 'fencedBy',
      '#fence': 'fence',
      '#n5': 'total-cents',
      '#status': 'status',
      '#n7': 'cronfence:runId',
      '#n8': 'cronfence:writtenAtMs',
    });
    expect(() =>
      fencedWrite.request({
        ref: { tableName: 'reports', key: { reportDate: 'x' } },
        attributes: { 'cronfence:runId': 'mine' },
        fc,
      }),
    ).toThrow(
      'reports {"reportDate":"x"}: attribute "cronfence:runId" is refused: names starting with "cronfence:"',
    );
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
