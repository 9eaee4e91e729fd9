/**
 * Effects fixture for integration tests: a real payment service per test, HTTP provider adapters
 * with the capabilities a test names, and readers for effect records.
 */

import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import {
  type EmailRequest,
  type PayoutRequest,
  type SettlementJobOptions,
  settlementJob,
} from '../../functions/merchant-settlement.js';
import type { FaultInjector } from '../../harness/faults/sdk-faults.js';
import { type PaymentService, startPaymentService } from '../../harness/local/payment-service.js';
import type { EffectProvider } from '../../lib/core/effects.js';
import { httpJsonProvider } from '../../lib/effects/http-provider.js';
import type { JobHandler } from '../../lib/runtime/define-job.js';
import { scanItems } from '../../lib/store/client.js';
import { PROBLEMS_INDEX } from '../../lib/store/schema.js';
import type { LocalStack } from './local-stack.js';

/** What a provider adapter declares. */
export type Capabilities = { readonly idempotencyKeys: boolean; readonly lookup: boolean };

/** The three provider kinds of the scenario (a). */
export const MODES: readonly (readonly [string, Capabilities])[] = [
  ['idempotency keys', { idempotencyKeys: true, lookup: false }],
  ['lookup only', { idempotencyKeys: false, lookup: true }],
  ['neither', { idempotencyKeys: false, lookup: false }],
];

/** Adapter options a test may change. */
export interface AdapterOptions {
  /** @default 2000 */
  readonly timeoutMs?: number;
  /** @default 30000 */
  readonly lookupSettleMs?: number;
  /** @default 24 h */
  readonly keyRetentionMs?: number;
}

/** Adapters for the service's payouts and e-mails, declaring `caps` (@default the service's modes). */
export function providers(
  service: PaymentService,
  caps: Capabilities = service.modes,
  options: AdapterOptions = {},
): { payments: EffectProvider<PayoutRequest>; emails: EffectProvider<EmailRequest> } {
  const base = { baseUrl: service.url, ...caps, timeoutMs: options.timeoutMs ?? 2_000 };
  const settle = {
    lookupSettleMs: options.lookupSettleMs ?? 30_000,
    keyRetentionMs: options.keyRetentionMs ?? 86_400_000,
  };
  return {
    payments: httpJsonProvider<PayoutRequest>({ ...base, ...settle, name: 'payments', path: '/payouts' }),
    emails: httpJsonProvider<EmailRequest>({ ...base, ...settle, name: 'emails', path: '/emails' }),
  };
}

/** Start a service in `caps` mode and build the settlement job on it. */
export async function paymentsSetup(
  caps: Capabilities,
  job: Omit<SettlementJobOptions, 'payments' | 'emails'> = {},
  options: AdapterOptions = {},
): Promise<{ service: PaymentService; settlement: JobHandler }> {
  const service = await startPaymentService(caps);
  const p = providers(service, caps, options);
  const settlement = settlementJob({ ...job, payments: () => p.payments, emails: () => p.emails });
  return { service, settlement };
}

/** The effect record with this idempotency key, whatever job owns it (consistent scan: tests only). */
export async function effectItem(
  stack: LocalStack,
  key: string,
): Promise<Record<string, unknown> | undefined> {
  const items = await stack.scan(stack.tableName);
  return items.find((i) => i.kind === 'effect' && i.key === key);
}

/** Every effect record of the library table. */
export function effectItems(stack: LocalStack): Promise<Record<string, unknown>[]> {
  return scanItems(stack.doc, {
    TableName: stack.tableName,
    ConsistentRead: true,
    FilterExpression: 'kind = :effect',
    ExpressionAttributeValues: { ':effect': 'effect' },
  });
}

/** Items of the sparse `problems` index with `problem = needs-review`. */
export async function needsReviewIndex(stack: LocalStack): Promise<Record<string, unknown>[]> {
  const out = await stack.doc.send(
    new QueryCommand({
      TableName: stack.tableName,
      IndexName: PROBLEMS_INDEX,
      KeyConditionExpression: 'problem = :p',
      ExpressionAttributeValues: { ':p': 'needs-review' },
    }),
  );
  return out.Items ?? [];
}

/** Make a worker's DynamoDB client fail every request from now on: its process is gone. */
export function kill(faults: FaultInjector): void {
  faults.add({
    name: 'process killed',
    match: () => true,
    action: { kind: 'fail', error: () => new Error('killed') },
    times: 1e9,
  });
}
