/**
 * The in-process runs the IAM tests record (Lambda and ECS alike): the scenarios (two concurrent
 * copies and one late copy of each job's last slots, with effects through the payment service) and
 * drills, each job's handler attributed to its role, every request on the wire recorded as that role.
 */
import { expect } from 'vitest';
import { formatReport, runDrill } from '../../../harness/drills/run-drills.js';
import type { Drill } from '../../../harness/drills/types.js';
import type { PaymentService } from '../../../harness/local/payment-service.js';
import type { LocalApp } from '../../../harness/local/run-local.js';
import { deliver, deliveriesFor } from '../../../harness/local/scheduler-emulator.js';
import { enumerateSlots } from '../../../lib/core/schedule/enumerate.js';
import type { JobHandler } from '../../../lib/runtime/define-job.js';
import { attributed, type RecordedRequest, recordInProcess } from './recorder.js';

/** The last `n` slots of a job before now, epoch ms. */
export function lastSlots(h: JobHandler, n: number): number[] {
  const toMs = Date.now();
  const fromMs = toMs - 4 * 86_400_000;
  return enumerateSlots({ ...h.job, schedule: h.expression, startMs: fromMs }, fromMs, toMs)
    .slice(-n)
    .map((s) => s.scheduledTimeMs);
}

/** Options of {@link recordRuns}. */
export interface RecordRunsOptions {
  /** The app whose handlers run (the drills' app too). */
  readonly app: LocalApp;
  /** The role (logical id) each job runs as. */
  readonly roleOf: (h: JobHandler) => string;
  readonly sink: (r: RecordedRequest) => void;
  /** The DynamoDB endpoint of the drills (DynamoDB Local). */
  readonly endpoint: string;
  /** Run the scenarios with this payment service, recorded as `source`. @default no scenarios */
  readonly scenarios?: { readonly source: string; readonly payments: PaymentService };
  /** The drills, recorded as `source`; each must pass. */
  readonly drills: { readonly source: string; readonly list: readonly Drill[] };
}

/**
 * Run the scenarios and drills in this process, recording their requests. The application tables'
 * variables and `DYNAMODB_ENDPOINT` must be set; `PAYMENTS_URL` is set for the scenarios only (the
 * drills start their own payment service).
 */
export async function recordRuns(o: RecordRunsOptions): Promise<void> {
  const stop = recordInProcess(o.sink);
  try {
    if (o.scenarios) {
      process.env.PAYMENTS_URL = o.scenarios.payments.url;
      process.env.PAYMENTS_CAPABILITIES = 'idempotency-keys,lookup';
      try {
        for (const h of o.app.handlers) {
          const handler = attributed(h, o.roleOf(h), o.scenarios.source);
          for (const slotMs of lastSlots(h, 2)) {
            const { concurrent, late } = deliveriesFor(h.job.name, slotMs, 2, 1);
            await Promise.all(concurrent.map((d) => deliver(handler, d)));
            for (const d of late) await deliver(handler, d);
          }
        }
      } finally {
        delete process.env.PAYMENTS_URL;
        delete process.env.PAYMENTS_CAPABILITIES;
      }
    }
    const app: LocalApp = {
      ...o.app,
      handlers: o.app.handlers.map((h) => attributed(h, o.roleOf(h), o.drills.source)),
    };
    const target = { endpoint: o.endpoint, description: 'DynamoDB Local', stop: async () => {} };
    for (const drill of o.drills.list) {
      const report = await runDrill(drill, { app, drills: [drill], target });
      expect(report.pass, formatReport(report).join('\n')).toBe(true);
    }
  } finally {
    stop();
  }
}
