/**
 * The DynamoDB backend of the protocol: turns a declared request (request.ts) into one UpdateItem,
 * PutItem or TransactWriteItems with its expressions compiled from the declaration, and a refused
 * condition into an answer carrying the returned item (unmarshalled: the Document client leaves it
 * marshalled). Every command's {@link RequestTag} is found from what a middleware sees
 * ({@link requestTagOf}), so middleware (fault injection, tracing) knows the step without parsing it.
 *
 * The writes go out as the low-level commands, marshalled here with `@aws-sdk/util-dynamodb` exactly
 * as the Document client would (same options, same wire input), and sent on the Document client's
 * own client: it shares one middleware stack and configuration with it, so every middleware (retries,
 * conflict retry, fault injection, metering) sees them as before. A Document-client command would
 * wrap the same command and resolve the middleware stack a second time per request, walking every
 * input to marshal it; the protocol's writes are on every run's path, so they skip that wrapper, and
 * each command class goes through a middleware chain resolved once ({@link ResolvedSender}: the SDK's
 * `cacheMiddleware`, scoped to these commands and re-resolved when the stack changes).
 */
import {
  type AttributeValue,
  type DynamoDBClient,
  PutItemCommand,
  TransactWriteItemsCommand,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, GetCommand, paginateQuery } from '@aws-sdk/lib-dynamodb';
import { convertToAttr, convertToNative } from '@aws-sdk/util-dynamodb';
import { decimal } from '../../core/digits.js';
import { type Condition, compileExpressions, VALUE_PLACEHOLDERS } from './expression.js';
import { ProtocolOp, type RequestTag } from './ops.js';
import {
  commandOf,
  type Item,
  type KeyRange,
  type ProtocolBackend,
  type ProtocolRequest,
  type RequestOutcome,
  type RequestParameters,
  type SendOptions,
  type Write,
} from './request.js';
import { ResolvedSender } from './resolved-send.js';

/**
 * Key of the {@link RequestTag} in the SDK handler context of a read (a Document-client command, whose
 * input its marshalling replaces before the `serialize` step). Middleware reads every tag, a read's
 * included, with {@link requestTagOf}.
 */
export const REQUEST_TAG = 'cronfenceRequest';

/**
 * The key under which a write's input object carries its tag. A low-level command keeps the input
 * object it was given (`command.input`), and the SDK hands that same object to every middleware as
 * `args.input`, at every step and on every retry: the input names its request without a middleware
 * added per command. A symbol, so the tag is no member of the request: the SDK serialises an input by
 * its operation's schema, and `JSON.stringify` and `structuredClone` leave symbol keys out. From the
 * global registry, so two copies of the library read each other's tags.
 */
const TAG_KEY: unique symbol = Symbol.for('cronfence.requestTag');

/** `input`, carrying the tag of its request (see {@link requestTagOf}). */
function tagInput<T extends object>(input: T, tag: RequestTag): T {
  (input as { [TAG_KEY]?: RequestTag })[TAG_KEY] = tag;
  return input;
}

/**
 * The {@link RequestTag} of the request an SDK middleware is handling (for middleware authors: fault
 * injection, tracing, metering): what the protocol declared the request to be, from the `args.input`
 * the middleware receives, or (a read) from its handler context. Works at every step of the client's
 * middleware stack and on every attempt.
 * @param input the middleware's `args.input`
 * @param context the middleware's handler context
 * @returns the tag, or undefined for a request the protocol did not send
 * @example
 * client.middlewareStack.add(
 *   (next, context) => (args) => {
 *     const tag = requestTagOf(args.input, context);
 *     if (tag) console.log(tag.op, tag.name, tag.runId);
 *     return next(args);
 *   },
 *   { step: 'finalizeRequest', name: 'logProtocolSteps' },
 * );
 */
export function requestTagOf(input: unknown, context?: object): RequestTag | undefined {
  const tag =
    typeof input === 'object' && input !== null ? (input as { [TAG_KEY]?: RequestTag })[TAG_KEY] : undefined;
  return tag ?? (context as Record<string, RequestTag | undefined> | undefined)?.[REQUEST_TAG];
}

type Reason = { Code?: string; Item?: Record<string, unknown> };

/**
 * The Document-client input of one declared write (PutItem, UpdateItem or a transaction's
 * ConditionCheck part): table, key or item, compiled expressions, and `ALL_OLD` on a refused condition.
 */
export function writeInput(w: Write): Record<string, unknown> {
  const base = { TableName: w.table, ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const };
  switch (w.kind) {
    case 'put':
      return { ...base, Item: w.item, ...compileExpressions(w.condition) };
    case 'update':
      return {
        ...base,
        Key: w.key,
        ...compileExpressions(w.condition, w.update),
        ...(w.returnValues && { ReturnValues: w.returnValues }),
      };
    case 'check':
      return { ...base, Key: w.key, ...compileExpressions(w.condition) };
  }
}

/** Marshalling as the library's Document client does it (lib/store/client.ts). */
const MARSHALL = { removeUndefinedValues: true, convertClassInstanceToMap: false } as const;

/**
 * `convertToAttr(v, MARSHALL)` of `@aws-sdk/util-dynamodb`, with its result for what protocol writes
 * are mostly made of written directly: a string is `S`; a boolean `BOOL`; a finite number within the
 * safe integer range `N` as its `toString()` (as `convertToNumberAttr` does; written by {@link decimal},
 * which gives the same digits without a call into V8's C++ for a timestamp); an array `L` of its
 * elements and a plain object (`constructor === Object`) `M` of its enumerable properties, undefined
 * and function values left out (as `removeUndefinedValues` leaves them out); a non-empty `Set` of
 * strings only `SS` of them in its order (the done set). Every other value (other sets, null, numbers
 * it refuses, other objects) is the library's `convertToAttr`.
 */
function toAttr(v: unknown): AttributeValue {
  if (typeof v === 'string') return { S: v };
  if (typeof v === 'boolean') return { BOOL: v };
  if (
    typeof v === 'number' &&
    Number.isFinite(v) &&
    v <= Number.MAX_SAFE_INTEGER &&
    v >= Number.MIN_SAFE_INTEGER
  )
    return { N: decimal(v) };
  if (Array.isArray(v)) {
    const L: AttributeValue[] = [];
    for (const x of v) if (x !== undefined && typeof x !== 'function') L.push(toAttr(x));
    return { L };
  }
  if (typeof v === 'object' && v !== null && v.constructor === Object)
    return { M: marshallValues(v as Record<string, unknown>) };
  if (v instanceof Set && v.constructor === Set && v.size > 0) {
    const SS: string[] = [];
    for (const x of v) {
      if (typeof x !== 'string') return convertToAttr(v, MARSHALL);
      SS.push(x);
    }
    return { SS };
  }
  return convertToAttr(v, MARSHALL);
}

/**
 * `marshall(values, MARSHALL)` of `@aws-sdk/util-dynamodb` for a map of values ({@link toAttr} each);
 * undefined and function values are left out, as `marshall` leaves them out of a map.
 */
function marshallValues(values: Record<string, unknown>): Record<string, AttributeValue> {
  const out: Record<string, AttributeValue> = {};
  for (const key in values) {
    const v = values[key];
    if (v === undefined || typeof v === 'function') continue;
    out[key] = toAttr(v);
  }
  return out;
}

/**
 * The low-level input of a declared write: {@link writeInput} with its item, key and expression
 * values marshalled (what the Document client would send for it).
 */
export function lowLevelInput(w: Write): Record<string, unknown> {
  const input = writeInput(w);
  const { Item, Key, ExpressionAttributeValues } = input as {
    Item?: Record<string, unknown>;
    Key?: Record<string, unknown>;
    ExpressionAttributeValues?: Record<string, unknown>;
  };
  if (Item) input.Item = marshallValues(Item);
  if (Key) input.Key = marshallValues(Key);
  if (ExpressionAttributeValues) input.ExpressionAttributeValues = marshallValues(ExpressionAttributeValues);
  return input;
}

/**
 * The compiled input of each request shape seen ({@link RequestParameters}), without its expression
 * values and (a put) its item. Bounded: past {@link SHAPE_CACHE_SIZE} shapes it starts over.
 */
const SHAPE_CACHE_SIZE = 256;
const shapes = new Map<string, Readonly<Record<string, unknown>>>();

/** `values` as an `ExpressionAttributeValues` map (`:v0`, `:v1`, ...), marshalled. */
function valueMap(values: readonly unknown[]): Record<string, AttributeValue> {
  const out: Record<string, AttributeValue> = {};
  // A primitive equal to the one before it shares its marshalled value (a claim gives its clock reading
  // four times): the SDK only reads the map.
  let previous: unknown;
  let previousAttr: AttributeValue | undefined;
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (v === undefined) continue;
    const attr =
      previousAttr !== undefined && v === previous && typeof v !== 'object' ? previousAttr : toAttr(v);
    out[VALUE_PLACEHOLDERS[i] ?? `:v${i}`] = attr;
    previous = v;
    previousAttr = attr;
  }
  return out;
}

/**
 * The low-level input of a single-write request: {@link lowLevelInput} of its write; for a request
 * with {@link RequestParameters}, its shape's compiled input with the request's own values (and a
 * put's own item), the first request of a shape compiled from its declaration and checked against its
 * parameters.
 * @throws Error when a request's parameters do not give its declared kind, values or item (a
 *   declaration and its parameters out of step: a defect, refused before anything is sent)
 */
export function singleInput(request: ProtocolRequest): Record<string, unknown> {
  const p = request.parameters;
  if (p === undefined) return lowLevelInput(request.writes[0]);
  const values = p.values();
  const known = shapes.get(p.shape);
  if (known !== undefined) {
    const input: Record<string, unknown> = { ...known };
    if (p.item !== undefined) input.Item = marshallValues(p.item());
    if (values.length > 0) input.ExpressionAttributeValues = valueMap(values);
    return input;
  }
  const declared = request.writes[0];
  const input = lowLevelInput(declared);
  const expected = JSON.stringify(input.ExpressionAttributeValues ?? {});
  const given = JSON.stringify(valueMap(values));
  const kind = p.item === undefined ? 'update' : 'put';
  const item = p.item === undefined ? undefined : JSON.stringify(marshallValues(p.item()));
  if (
    request.writes.length !== 1 ||
    declared.kind !== kind ||
    expected !== given ||
    (values.length === 0) !== (input.ExpressionAttributeValues === undefined) ||
    item !== (input.Item === undefined ? undefined : JSON.stringify(input.Item))
  )
    throw new Error(
      `the ${request.tag.name} request's parameters do not give its declared values (shape ${JSON.stringify(p.shape)}): declared ${expected}, parameters ${given}; declared a ${declared.kind} of ${request.writes.length} write(s), parameters a ${kind}${item === undefined ? '' : ` of item ${item}`}`,
    );
  if (shapes.size >= SHAPE_CACHE_SIZE) shapes.clear();
  const { Item: _item, ExpressionAttributeValues: _values, ...text } = input;
  shapes.set(
    p.shape,
    Object.freeze({
      ...text,
      ...(text.Key !== undefined && { Key: deepFreeze(text.Key) }),
      ...(text.ExpressionAttributeNames !== undefined && {
        ExpressionAttributeNames: deepFreeze(text.ExpressionAttributeNames),
      }),
    }),
  );
  return input;
}

/** `v` and every object in it frozen: a shape's key and names are shared by its requests. */
function deepFreeze<T>(v: T): T {
  if (typeof v === 'object' && v !== null) {
    for (const x of Object.values(v)) deepFreeze(x);
    Object.freeze(v);
  }
  return v;
}

/**
 * Put the request's tag in the command's handler context: for a Document-client command (a read),
 * whose marshalling gives the later steps another input object than the one it was given.
 */
function tagged<C extends { middlewareStack: { add: (...a: never[]) => unknown } }>(
  command: C,
  tag: RequestTag,
): C {
  // biome-ignore lint/suspicious/noExplicitAny: SDK middleware generics are not worth spelling out here
  (command.middlewareStack as any).add(
    // biome-ignore lint/suspicious/noExplicitAny: the SDK's handler context is an open record
    (next: any, context: any) => (args: unknown) => {
      context[REQUEST_TAG] = tag;
      return next(args);
    },
    { step: 'initialize', name: 'cronfenceRequestTag', override: true },
  );
  return command;
}

/**
 * `convertToNative(v)` of `@aws-sdk/util-dynamodb` (no options), with its result for what protocol
 * items are mostly made of read directly: `S` the string; `N` within the safe integer range its
 * `Number` (as `convertNumber` does); `BOOL`; `NULL` null; `SS` a Set of the strings; `L` and `M`
 * element by element. Every other value (numbers outside that range, binary, number sets) is the
 * library's. A deserialized AttributeValue has one member, so which one is read first does not matter.
 */
function toNative(v: AttributeValue): unknown {
  if (v.S !== undefined) return v.S;
  if (v.N !== undefined) {
    const n = Number(v.N);
    return n <= Number.MAX_SAFE_INTEGER && n >= Number.MIN_SAFE_INTEGER ? n : convertToNative(v);
  }
  if (v.BOOL !== undefined) return Boolean(v.BOOL);
  if (v.SS !== undefined) return new Set(v.SS);
  if (v.L !== undefined) {
    const out: unknown[] = [];
    for (const x of v.L) out.push(toNative(x));
    return out;
  }
  if (v.M !== undefined) return nativeItem(v.M);
  if (v.NULL !== undefined) return null;
  return convertToNative(v);
}

/** `unmarshall(item)` of `@aws-sdk/util-dynamodb` (no options), {@link toNative} each attribute. */
export function nativeItem(item: Record<string, AttributeValue>): Item {
  const out: Item = {};
  for (const key of Object.keys(item)) out[key] = toNative(item[key] as AttributeValue);
  return out;
}

/** The attributes `names` of `item` that it holds, unmarshalled ({@link toNative} each). */
function nativeAttributes(item: Record<string, AttributeValue>, names: readonly string[]): Item {
  const out: Item = {};
  for (const name of names) {
    const v = item[name];
    if (v !== undefined) out[name] = toNative(v);
  }
  return out;
}

/** The item a refused condition returned, unmarshalled. */
function returnedItem(err: { Item?: Record<string, unknown> } | undefined): Item | undefined {
  return err?.Item ? nativeItem(err.Item as Record<string, AttributeValue>) : undefined;
}

/** The protocol on a DynamoDB Document client. */
export class DynamoBackend implements ProtocolBackend {
  /**
   * The Document client as the low-level client it wraps: `send` is the same, on the same middleware
   * stack and configuration (lib-dynamodb shares both), so low-level commands go out through it.
   */
  private readonly low: DynamoDBClient;
  /** Sends the protocol's low-level commands, each class through a handler resolved once. */
  private readonly sender: ResolvedSender;

  constructor(private readonly doc: DynamoDBDocumentClient) {
    this.low = doc as unknown as DynamoDBClient;
    this.sender = new ResolvedSender(this.low);
  }

  send(request: ProtocolRequest, options: SendOptions = {}): Promise<RequestOutcome> {
    // Not `async`: it hands on the promise of the write it sends (an async function returning a promise
    // adds microtask hops between the response and its reader). A malformed request still rejects.
    try {
      // `commandOf` does not read a parameterised request's `writes` (they would build its declaration).
      return commandOf(request) === 'TransactWriteItems'
        ? this.transact(request, options)
        : this.single(request, options);
    } catch (err) {
      return Promise.reject(err);
    }
  }

  async get(table: string, key: Item): Promise<Item | undefined> {
    const out = await this.doc.send(
      tagged(new GetCommand({ TableName: table, Key: key, ConsistentRead: true }), {
        op: ProtocolOp.Read,
        name: 'read',
        table,
        key,
      }),
    );
    return out.Item;
  }

  async query(table: string, range: KeyRange, filter?: Condition): Promise<Item[]> {
    const f = compileExpressions(filter);
    const items: Item[] = [];
    const pages = paginateQuery(
      { client: this.doc },
      {
        TableName: table,
        KeyConditionExpression: '#pk = :pk AND #sk BETWEEN :fromSk AND :toSk',
        ...(f.ConditionExpression !== undefined && { FilterExpression: f.ConditionExpression }),
        ExpressionAttributeNames: { ...f.ExpressionAttributeNames, '#pk': 'pk', '#sk': 'sk' },
        ExpressionAttributeValues: {
          ...f.ExpressionAttributeValues,
          ':pk': range.pk,
          ':fromSk': range.fromSk,
          ':toSk': range.toSk,
        },
        ConsistentRead: true,
      },
    );
    for await (const page of pages) items.push(...(page.Items ?? []));
    return items;
  }

  private async single(request: ProtocolRequest, options: SendOptions): Promise<RequestOutcome> {
    const input = singleInput(request);
    const tables = [input.TableName as string];
    const command = this.sender.command(
      commandOf(request) === 'PutItem' ? PutItemCommand : UpdateItemCommand,
      tagInput(input, request.tag),
      tables,
      options,
    );
    try {
      const out = await this.sender.send<{ Attributes?: Record<string, AttributeValue> }>(
        command,
        tables,
        options,
      );
      this.sender.settled(command);
      const attributes = out.Attributes;
      if (attributes === undefined) return { applied: true };
      const names = request.returnedAttributes;
      return {
        applied: true,
        attributes: names ? nativeAttributes(attributes, names) : nativeItem(attributes),
      };
    } catch (err) {
      this.sender.settled(command);
      if ((err as Error)?.name !== 'ConditionalCheckFailedException') throw err;
      return { applied: false, index: 0, item: returnedItem(err as { Item?: Record<string, unknown> }) };
    }
  }

  private async transact(request: ProtocolRequest, options: SendOptions): Promise<RequestOutcome> {
    const TransactItems = request.writes.map((w) => {
      const input = lowLevelInput(w);
      return w.kind === 'put'
        ? { Put: input }
        : w.kind === 'update'
          ? { Update: input }
          : { ConditionCheck: input };
    });
    // Transaction conflicts are retried with backoff by the client's one retry policy
    // (lib/store/client.ts addConflictRetry, CONFLICT_ATTEMPTS); what reaches here is final.
    const tables = request.writes.map((w) => w.table);
    const command = this.sender.command(
      TransactWriteItemsCommand,
      tagInput({ TransactItems }, request.tag),
      tables,
      options,
    );
    try {
      await this.sender.send(command, tables, options);
      this.sender.settled(command);
      return { applied: true };
    } catch (err) {
      this.sender.settled(command);
      const reasons = (err as { CancellationReasons?: Reason[] }).CancellationReasons;
      if ((err as Error)?.name !== 'TransactionCanceledException' || !reasons) throw err;
      const index = reasons.findIndex((r) => r?.Code === 'ConditionalCheckFailed');
      if (index >= 0) return { applied: false, index, item: returnedItem(reasons[index]) };
      throw err;
    }
  }
}
