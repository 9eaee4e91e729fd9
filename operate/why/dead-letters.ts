/**
 * Which peeked dead-letter messages are about one occurrence (pure). The job's queue takes two shapes:
 * Scheduler's dead-letter event (the body is the schedule's input, `{ job, scheduledTime, ... }`, and the
 * message attributes `ERROR_CODE`, `ERROR_MESSAGE`, `RETRY_ATTEMPTS`), and Lambda's on-failure record
 * (`{ requestContext: { condition, approximateInvokeCount }, requestPayload: <the event>, ... }`).
 */
import type { PeekedMessage } from './aws-evidence.js';
import type { DeadLetterFacts } from './model.js';

interface Payload {
  readonly job?: string;
  readonly scheduledTime?: string;
}

interface LambdaRecord {
  readonly requestContext?: { condition?: string; approximateInvokeCount?: number };
  readonly requestPayload?: Payload;
  readonly responsePayload?: { errorType?: string; errorMessage?: string };
}

function parse(body: string): (Payload & LambdaRecord) | undefined {
  try {
    const v = JSON.parse(body) as unknown;
    return v && typeof v === 'object' ? (v as Payload & LambdaRecord) : undefined;
  } catch {
    return undefined;
  }
}

/** The messages naming `job`'s occurrence at `slotMs` (its `scheduledTime`, same minute). */
export function deadLettersFor(
  messages: readonly PeekedMessage[],
  job: string,
  slotMs: number,
): DeadLetterFacts[] {
  const minute = (ms: number) => Math.floor(ms / 60_000);
  const out: DeadLetterFacts[] = [];
  for (const m of messages) {
    const body = parse(m.body);
    if (!body) continue;
    const lambda = body.requestContext !== undefined || body.requestPayload !== undefined;
    const payload = lambda ? body.requestPayload : body;
    const at = Date.parse(payload?.scheduledTime ?? '');
    if (!Number.isFinite(at) || minute(at) !== minute(slotMs)) continue;
    if (payload?.job !== undefined && payload.job !== job) continue;
    const a = m.attributes;
    const errorCode = lambda
      ? (body.requestContext?.condition ?? a.ErrorCode)
      : (a.ERROR_CODE ?? a.ErrorCode);
    const errorMessage = lambda
      ? (body.responsePayload?.errorMessage ?? a.ErrorMessage)
      : (a.ERROR_MESSAGE ?? a.ErrorMessage);
    const attempts = lambda ? body.requestContext?.approximateInvokeCount : Number(a.RETRY_ATTEMPTS);
    out.push({
      queue: m.queue,
      messageId: m.messageId,
      from: lambda || a.RequestID !== undefined ? 'lambda' : 'scheduler',
      ...(errorCode !== undefined && { errorCode }),
      ...(errorMessage !== undefined && { errorMessage }),
      ...(attempts !== undefined && Number.isFinite(attempts) && { attempts }),
    });
  }
  return out;
}
