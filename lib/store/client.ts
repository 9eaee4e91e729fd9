/**
 * The one DynamoDB client factory (runtime, CLI, harness, tests) and paginated reads built on the
 * SDK's own paginators (`paginateQuery` / `paginateScan` of lib-dynamodb), never on hand-written
 * `LastEvaluatedKey` loops.
 */
import { DynamoDBClient, type DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import {
  DynamoDBDocumentClient,
  paginateQuery,
  paginateScan,
  type QueryCommandInput,
  type ScanCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { InvalidArgumentError } from '../core/input-errors.js';
import { EndpointUnreachableError } from './errors.js';

/** The environment variable naming a DynamoDB endpoint (DynamoDB Local). */
export const DYNAMODB_ENDPOINT_ENV = 'DYNAMODB_ENDPOINT';

/**
 * The DynamoDB endpoint `DYNAMODB_ENDPOINT` names, read the same way everywhere (runtime, CLI,
 * `npm start`, drills): unset means none (AWS, or the DynamoDB Local that `npm start` starts).
 * Set but empty is refused like an empty `CRONFENCE_TABLE`: a failed `$(...)` leaves it so, and
 * ignoring it would quietly talk to another database.
 * @throws InvalidArgumentError naming `DYNAMODB_ENDPOINT` and its value when it is empty or not an http(s) URL.
 */
export function dynamoEndpointFromEnv(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const value = env[DYNAMODB_ENDPOINT_ENV];
  if (value === undefined) return undefined;
  if (value.trim() === '')
    throw new InvalidArgumentError(
      DYNAMODB_ENDPOINT_ENV,
      value,
      'is set but empty (did the command that set it fail?): set it to a URL such as http://127.0.0.1:8000, or unset it',
    );
  return checkedEndpoint(DYNAMODB_ENDPOINT_ENV, value);
}

/**
 * A DynamoDB endpoint as given (`--endpoint`, `DYNAMODB_ENDPOINT`, a local state file), if it is an
 * http(s) URL.
 * @param source - what to name in the error: the flag, the variable or the file.
 * @throws InvalidArgumentError naming `source` and the value otherwise.
 */
export function checkedEndpoint(source: string, value: string): string {
  let protocol = '';
  try {
    protocol = new URL(value).protocol;
  } catch {}
  if (!/^https?:$/.test(protocol))
    throw new InvalidArgumentError(source, value, 'is not a URL such as http://127.0.0.1:8000');
  return value;
}

/**
 * Time one DynamoDB request attempt may take on AWS before the SDK abandons it (and retries it as a
 * transient `TimeoutError`), ms: below the renew period of every lease over 3 s (lease / 3), far above
 * DynamoDB's single-digit-ms latency. A request hung in the network never holds a run past its
 * deadline: the lease keeper's watchdog does not wait for requests, and it gives up a renewal attempt
 * after one renew period whatever this timeout is.
 */
export const DYNAMODB_REQUEST_TIMEOUT_MS = 1_000;
/** The same for a local endpoint (DynamoDB Local, a JVM on a developer's loaded machine), ms. */
export const DYNAMODB_LOCAL_REQUEST_TIMEOUT_MS = 5_000;
/** Time to establish a connection to DynamoDB before the attempt is abandoned, ms. */
export const DYNAMODB_CONNECTION_TIMEOUT_MS = 1_000;

/**
 * A Document client (undefined attributes removed, class instances not converted).
 * Endpoint: `config.endpoint`, else `DYNAMODB_ENDPOINT` (e.g. DynamoDB Local). Region: `AWS_REGION`.
 * Every key of `config` wins, an `undefined` one too (`region: undefined` leaves the region to the
 * SDK's chain). @default region 'us-east-1'; dummy credentials for a localhost endpoint when no
 * `AWS_ACCESS_KEY_ID` is set; `requestHandler` with a per-attempt request timeout of
 * {@link DYNAMODB_REQUEST_TIMEOUT_MS} ({@link DYNAMODB_LOCAL_REQUEST_TIMEOUT_MS} for a local endpoint)
 * that throws, and a connection timeout of {@link DYNAMODB_CONNECTION_TIMEOUT_MS}.
 */
export function createDocumentClient(config: DynamoDBClientConfig = {}): DynamoDBDocumentClient {
  const endpoint = 'endpoint' in config ? config.endpoint : dynamoEndpointFromEnv();
  const local = endpoint !== undefined && /localhost|127\.0\.0\.1|\[::1\]/.test(String(endpoint));
  const client = new DynamoDBClient({
    region: process.env.AWS_REGION ?? 'us-east-1',
    ...(endpoint !== undefined && { endpoint }),
    ...(local &&
      !process.env.AWS_ACCESS_KEY_ID && { credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }),
    requestHandler: {
      requestTimeout: local ? DYNAMODB_LOCAL_REQUEST_TIMEOUT_MS : DYNAMODB_REQUEST_TIMEOUT_MS,
      connectionTimeout: DYNAMODB_CONNECTION_TIMEOUT_MS,
      throwOnRequestTimeout: true,
    },
    ...config,
  });
  const doc = DynamoDBDocumentClient.from(client, {
    marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
  });
  addConflictRetry(doc);
  nameMissingTable(doc, endpoint === undefined ? undefined : String(endpoint));
  return doc;
}

/** The table names a request addresses (`TableName`, transaction items, batch `RequestItems`). */
function tablesOf(input: Record<string, unknown> | undefined): string[] {
  if (!input) return [];
  if (typeof input.TableName === 'string') return [input.TableName];
  const items = (input.TransactItems ?? []) as Record<string, { TableName?: string }>[];
  const fromItems = items.flatMap((i) => Object.values(i).map((op) => op?.TableName));
  const batch = Object.keys((input.RequestItems ?? {}) as object);
  return [...new Set([...fromItems, ...batch].filter((t): t is string => typeof t === 'string'))];
}

/**
 * DynamoDB's `ResourceNotFoundException` does not say which table it looked for: prefix its message
 * with the table name(s) of the request and where it was sent (the endpoint, else the region). The
 * error keeps its name, so callers still recognise it.
 */
function nameMissingTable(doc: DynamoDBDocumentClient, endpoint: string | undefined): void {
  doc.middlewareStack.add(
    // biome-ignore lint/suspicious/noExplicitAny: SDK middleware generics are not worth spelling out here
    (next: any) => async (args: any) => {
      try {
        return await next(args);
      } catch (err) {
        const e = err as Error;
        const tables = tablesOf(args?.input);
        if (e?.name !== 'ResourceNotFoundException' || tables.length === 0 || e.message.startsWith('table '))
          throw err;
        const where = endpoint ?? `region ${await doc.config.region().catch(() => '(unset)')}`;
        e.message = `table ${tables.map((t) => JSON.stringify(t)).join(', ')} does not exist at ${where} (ResourceNotFoundException: ${e.message})`;
        throw e;
      }
    },
    { step: 'initialize', name: 'cronfenceMissingTable', override: true },
  );
}

const NETWORK_ERROR = /ECONNREFUSED|ENOTFOUND|EAI_AGAIN|ECONNRESET|EHOSTUNREACH|ETIMEDOUT/;

/**
 * Make a network failure to reach `endpoint` an {@link EndpointUnreachableError} naming where the
 * endpoint came from (`variable`: `DYNAMODB_ENDPOINT`, `--endpoint`, a state file) and its value,
 * with `advice` on what to do. For clients on a configured endpoint (DynamoDB Local); the SDK's own
 * retries run first.
 */
export function nameUnreachableEndpoint(
  doc: DynamoDBDocumentClient,
  variable: string,
  endpoint: string,
  advice: string,
): void {
  doc.middlewareStack.add(
    // biome-ignore lint/suspicious/noExplicitAny: SDK middleware generics are not worth spelling out here
    (next: any) => async (args: any) => {
      try {
        return await next(args);
      } catch (err) {
        const e = err as Error & { code?: string };
        if (NETWORK_ERROR.test(`${e?.code ?? ''} ${e?.message ?? ''}`))
          throw new EndpointUnreachableError(variable, endpoint, advice, { cause: err });
        throw err;
      }
    },
    { step: 'initialize', name: 'cronfenceUnreachableEndpoint', override: true },
  );
}

/** Attempts per request when DynamoDB reports a transaction conflict (on top of the SDK's own retries). */
export const CONFLICT_ATTEMPTS = 8;

/** Backoff before conflict retry `attempt` (1-based), ms: full jitter over 25 ms x 2^attempt, capped at 1.6 s. */
export function conflictBackoffMs(attempt: number, random: () => number = Math.random): number {
  return Math.floor(random() * Math.min(1_600, 25 * 2 ** attempt));
}

/**
 * True for an error that means "a transaction touching this item is in flight; try again":
 * `TransactionConflictException` on a single-item request, or a cancelled transaction whose only
 * reasons are conflicts (none is a condition failure). The SDK's standard retry strategy retries
 * neither (they are not throttling or transient errors to it).
 */
export function isConflictOnly(err: unknown): boolean {
  const e = err as { name?: string; CancellationReasons?: { Code?: string }[] };
  if (e?.name === 'TransactionConflictException') return true;
  if (e?.name !== 'TransactionCanceledException' || !e.CancellationReasons) return false;
  const codes = e.CancellationReasons.map((r) => r.Code ?? 'None');
  return (
    codes.includes('TransactionConflict') && codes.every((c) => c === 'TransactionConflict' || c === 'None')
  );
}

/**
 * Retry transaction conflicts with backoff for every request of this client: one SDK middleware at
 * the `initialize` step, so each retry passes through the SDK's own retry step (and any fault layer
 * after it) again. Conflicts are transient by nature (DynamoDB docs: "Transaction conflict handling").
 */
function addConflictRetry(doc: DynamoDBDocumentClient): void {
  doc.middlewareStack.add(
    // biome-ignore lint/suspicious/noExplicitAny: SDK middleware generics are not worth spelling out here
    (next: any) => async (args: any) => {
      for (let attempt = 1; ; attempt++) {
        try {
          return await next(args);
        } catch (err) {
          if (!isConflictOnly(err) || attempt >= CONFLICT_ATTEMPTS) throw err;
          await new Promise((r) => setTimeout(r, conflictBackoffMs(attempt)));
        }
      }
    },
    { step: 'initialize', name: 'cronfenceConflictRetry', override: true },
  );
}

/** True for DynamoDB's TransactionConflictException (an item is part of a transaction in flight). */
export function isTransactionConflict(err: unknown): boolean {
  return (err as Error)?.name === 'TransactionConflictException';
}

/** An item as the Document client returns it. */
export type StoredItem = Record<string, unknown>;

/**
 * Every item of a Query, all pages, or the first `limit`. @default limit: all
 * @throws the SDK's error (callers name the read)
 */
export async function queryItems(
  doc: DynamoDBDocumentClient,
  input: QueryCommandInput,
  limit: number = Number.POSITIVE_INFINITY,
): Promise<StoredItem[]> {
  const items: StoredItem[] = [];
  // A filtered query reads up to 500 items a page; an unfiltered one no more than it still needs.
  const pageSize =
    input.FilterExpression || !Number.isFinite(limit) ? 500 : Math.max(Math.min(limit, 500), 1);
  const paged = input.FilterExpression || Number.isFinite(limit);
  for await (const page of paginateQuery({ client: doc, ...(paged && { pageSize }) }, input)) {
    items.push(...(page.Items ?? []));
    if (items.length >= limit) break;
  }
  return items.slice(0, limit);
}

/** Every item of a Scan, all pages. @throws the SDK's error */
export async function scanItems(doc: DynamoDBDocumentClient, input: ScanCommandInput): Promise<StoredItem[]> {
  const items: StoredItem[] = [];
  for await (const page of paginateScan({ client: doc }, input)) items.push(...(page.Items ?? []));
  return items;
}
