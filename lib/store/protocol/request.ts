/**
 * A protocol request as data (what one declared operation asks of the table) and the port a backend
 * implements to carry it out: DynamoDB (dynamo-backend.ts) or the harness's in-memory table. The
 * backend knows nothing of leases or fences; {@link perform} turns its answer into the operation's
 * decision. (Powertools' idempotency package splits its base persistence layer from its DynamoDB
 * layer the same way.)
 */
import { StoreError } from '../errors.js';
import type { Condition, Update } from './expression.js';
import type { RequestTag } from './ops.js';

/** An item: attribute name → plain value (Sets for string sets). */
export type Item = Record<string, unknown>;

/** One write of a request. */
export type Write =
  /** Replace the whole item (attributes set to `undefined` are left out). */
  | {
      readonly kind: 'put';
      readonly table: string;
      readonly key: Item;
      readonly item: Item;
      readonly condition: Condition;
    }
  /** Update (or create) the item. */
  | {
      readonly kind: 'update';
      readonly table: string;
      readonly key: Item;
      readonly update: Update;
      readonly condition: Condition;
      /** What an accepted update returns. @default nothing */
      readonly returnValues?: 'ALL_OLD' | 'ALL_NEW';
    }
  /** Only check a condition (inside a transaction). */
  | { readonly kind: 'check'; readonly table: string; readonly key: Item; readonly condition: Condition };

/**
 * One request: a single conditional write, or a transaction of several (all or none). Every refused
 * condition returns the item as it is (`ReturnValuesOnConditionCheckFailure: ALL_OLD`).
 */
export interface ProtocolRequest {
  readonly tag: RequestTag;
  /** Names the request in errors, e.g. `claim lease`, `insert-once reports {"reportDate":"…"}`. */
  readonly label: string;
  readonly writes: readonly [Write, ...Write[]];
  /**
   * The attributes of the item an accepted request returns (its write's `returnValues`) that the
   * operation reads: a backend may hand back only these. @default all of them
   */
  readonly returnedAttributes?: readonly string[];
  /**
   * Set on a single-write request (an update, or a put) whose expressions depend on its input only
   * through their values.
   * @default none (backends compile `writes`)
   */
  readonly parameters?: RequestParameters;
}

/**
 * The values of a single-write request whose table, key (an update's), condition and update text and
 * attribute names are those of every request of its `shape`. A backend may compile the first request
 * of a shape from its `writes` and send the later ones as that text with their own values (the
 * DynamoDB backend does: dynamo-backend.ts); a request that carries parameters may build `writes` only
 * when read.
 */
export interface RequestParameters {
  /**
   * Names the request's kind, expressions, key and table: equal shapes, equal compiled text and
   * names. Bounded per process by the jobs and shards it runs (the backend keeps a bounded cache).
   */
  readonly shape: string;
  /**
   * The request's expression values in the order its compiled expressions number them (`:v0`,
   * `:v1`, ...: the condition's first, then the update's), as plain values; none of them undefined.
   */
  values(): readonly unknown[];
  /**
   * A put's item (its declared `item`, as plain values): set for a put, whose item is its own on every
   * request of its shape. @default none: the request is an update
   */
  item?(): Item;
}

/**
 * {@link RequestParameters} computed from the request's input when a backend asks for them: `compute`
 * is a function of the operation, given the input, so a request makes no closure of its own.
 */
export class InputParameters<I> implements RequestParameters {
  /**
   * @param shape see {@link RequestParameters.shape}
   * @param input what `compute` reads
   * @param compute the values ({@link RequestParameters.values}) of `input`
   */
  constructor(
    readonly shape: string,
    private readonly input: I,
    private readonly compute: (input: I) => readonly unknown[],
  ) {}

  values(): readonly unknown[] {
    return this.compute(this.input);
  }
}

/** {@link InputParameters} of a put: its item is given as it is. */
export class PutParameters<I> extends InputParameters<I> {
  /** @param putItem the put's item ({@link RequestParameters.item}) */
  constructor(
    shape: string,
    input: I,
    compute: (input: I) => readonly unknown[],
    private readonly putItem: Item,
  ) {
    super(shape, input, compute);
  }

  item(): Item {
    return this.putItem;
  }
}

/**
 * A request with {@link RequestParameters} whose declaration is built only when its `writes` are read
 * (by a backend that compiles it, an error message, a shape's first request). A class: its accessor is
 * on the prototype, where an accessor in an object literal makes every request an object of its own
 * shape (about 1 µs each in V8).
 */
export class ParameterisedRequest implements ProtocolRequest {
  private declared: readonly [Write, ...Write[]] | undefined;

  /**
   * @param declare builds the request's declaration (once, when `writes` is first read)
   * @param returnedAttributes see {@link ProtocolRequest.returnedAttributes} @default all of them
   */
  constructor(
    readonly tag: RequestTag,
    readonly label: string,
    readonly parameters: RequestParameters,
    private readonly declare: () => readonly [Write, ...Write[]],
    readonly returnedAttributes?: readonly string[],
  ) {}

  get writes(): readonly [Write, ...Write[]] {
    this.declared ??= this.declare();
    return this.declared;
  }
}

/** What a backend answers. */
export type RequestOutcome =
  | { readonly applied: true; readonly attributes?: Item }
  /** Write `index` of the request refused its condition; `item` is that item as it is. */
  | { readonly applied: false; readonly index: number; readonly item: Item | undefined };

/** The primitives a backend implements. */
/** Options of one send. */
export interface SendOptions {
  /** Cancels the request and any retry of it not yet sent (the AWS SDK's `abortSignal`). @default none */
  readonly abortSignal?: AbortSignal;
}

export interface ProtocolBackend {
  /**
   * Carry out one request atomically. Refused conditions are answers, not errors.
   * @throws the backend's own error on any other failure (throttling, network, ...; an aborted send)
   */
  send(request: ProtocolRequest, options?: SendOptions): Promise<RequestOutcome>;
  /** Read one item, strongly consistent. @throws the backend's own error */
  get(table: string, key: Item): Promise<Item | undefined>;
  /**
   * Every item of partition `pk` whose sort key is in [`fromSk`, `toSk`] and on which `filter`
   * holds, strongly consistent, all pages. @throws the backend's own error
   */
  query(table: string, range: KeyRange, filter?: Condition): Promise<Item[]>;
}

/** A sort-key range of one partition of the library table (`pk` / `sk`). */
export interface KeyRange {
  readonly pk: string;
  readonly fromSk: string;
  readonly toSk: string;
}

/**
 * One operation of the protocol, declared once: the request it sends, what an accepted request
 * returns, and what a refusal means (a decision, or a thrown domain error).
 */
export interface Operation<I, R> {
  /** The operation's name, as in {@link RequestTag.name}. */
  readonly name: string;
  /** The request for `input`. May throw a domain error for bad input (nothing is sent). */
  request(input: I): ProtocolRequest;
  /** The result of an accepted request. */
  accepted(attributes: Item | undefined, input: I): R;
  /** The meaning of a refusal, from the item the refused write returned (`index`: which write). */
  refused(item: Item | undefined, index: number, input: I): R;
}

/** The DynamoDB API name of a request, for error messages. */
export function commandOf(request: ProtocolRequest): 'TransactWriteItems' | 'PutItem' | 'UpdateItem' {
  // A request with parameters is one write, a put when it gives an item: its declaration is not built.
  if (request.parameters !== undefined)
    return request.parameters.item !== undefined ? 'PutItem' : 'UpdateItem';
  if (request.writes.length > 1) return 'TransactWriteItems';
  return request.writes[0].kind === 'put' ? 'PutItem' : 'UpdateItem';
}

/**
 * Carry out one operation on a backend.
 * @throws StoreError naming the request on a backend failure; the operation's domain errors on refusal.
 */
export async function perform<I, R>(
  backend: ProtocolBackend,
  op: Operation<I, R>,
  input: I,
  options?: SendOptions,
): Promise<R> {
  const request = op.request(input);
  let outcome: RequestOutcome;
  try {
    outcome = await backend.send(request, options);
  } catch (err) {
    throw new StoreError(`${commandOf(request)} (${request.label})`, err);
  }
  return outcome.applied
    ? op.accepted(outcome.attributes, input)
    : op.refused(outcome.item, outcome.index, input);
}

/**
 * Query a key range through a backend.
 * @throws StoreError naming the query (`Query (<what>)`) on a backend failure.
 */
export async function query(
  backend: ProtocolBackend,
  table: string,
  range: KeyRange,
  filter: Condition | undefined,
  what: string,
): Promise<Item[]> {
  try {
    return await backend.query(table, range, filter);
  } catch (err) {
    throw new StoreError(`Query (${what})`, err);
  }
}

/**
 * Read one item through a backend.
 * @throws StoreError naming the read (`GetItem (<what>)`) on a backend failure.
 */
export async function read(
  backend: ProtocolBackend,
  table: string,
  key: Item,
  what: string,
): Promise<Item | undefined> {
  try {
    return await backend.get(table, key);
  } catch (err) {
    throw new StoreError(`GetItem (${what})`, err);
  }
}
