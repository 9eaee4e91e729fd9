/**
 * Sending the protocol's low-level DynamoDB commands through a middleware chain resolved once per
 * command class, instead of once per request.
 *
 * `client.send(command)` resolves the middleware stack for every request: it clones the client's
 * stack, merges the command's own, sorts every step and composes the handler chain, which is most of
 * the SDK's cost before the request's serialisation (measured in BENCHMARKS.md section 9: 30–45 µs per
 * request on a cold path, three times per run). The SDK offers the same saving as a client option,
 * `cacheMiddleware: true` (smithy `Client.send`: one handler per command class, reused while the send
 * has no options). That option cannot be set on the library's Document client: lib-dynamodb's commands
 * resolve to a handler bound to the command they were resolved for, so a cached one would send the
 * first command's input for every later one. Here the cache covers only the low-level commands of
 * `@aws-sdk/client-dynamodb` the protocol builds, whose handler reads each request's input from the
 * command it is given (`args.input`), as `cacheMiddleware` relies on.
 *
 * What it keeps as `client.send` has it:
 * - Every request goes through `client.send`, so whatever wraps `send` (OpenTelemetry's and other
 *   tracers' instrumentation of the SDK, a recorder) sees it: only the command's `resolveMiddleware`
 *   is answered from the cache.
 * - Every middleware on the client's stack runs for every request (retries, conflict retry, tracing,
 *   fault injection, metering). A change to the stack (`add`, `addRelativeTo`, `use`, `remove`,
 *   `removeByTag`, setting `identifyOnResolve`) or a new stack object makes the next request resolve
 *   again, where `cacheMiddleware` would keep the old chain.
 * - A command given middleware of its own (its `middlewareStack` not empty when it is sent), and a send
 *   with options (an `abortSignal`: lease renewals), resolve as `client.send` always does.
 * - A configuration object replaced, or its `requestHandler` or `logger` replaced, resolves again. Other
 *   configuration members changed in place after the client's first request are not seen by the chain
 *   (the SDK reads most of them when the client is built); a stack method taken off the stack object
 *   before the first send (`const { add } = client.middlewareStack`) changes the stack unseen.
 *
 * The command objects are reused too ({@link ResolvedSender.command}): a command made for a cached send
 * is given the next input of its class once its send has settled, since making one builds a middleware
 * stack of its own that a cached send never uses. Sends in flight at once each have their own command;
 * a command something gave middleware of its own (a wrapper of `send` adding to the command's stack)
 * resolves as `client.send` does and is not reused.
 *
 * What it shares, as `cacheMiddleware` does: the handler context of one command class is one object for
 * the requests sent through it, and the SDK's middlewares write per-request values there (the resolved
 * endpoint, the signing region and service, the chosen auth scheme with its identity). For requests of
 * one client to tables named by plain name, those values are the same for every request (one region,
 * one endpoint, one credentials provider). A table named by ARN may resolve to another account's
 * endpoint, so a request naming one (an ARN contains `:`; a table name cannot) is sent through
 * `client.send`.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';

/** A command as `Command.resolveMiddleware` sees it (the smithy `Command` class). */
interface ResolvableCommand {
  readonly middlewareStack: { identify(): string[] };
  resolveMiddleware(stack: unknown, configuration: unknown, options: unknown): Handler;
}

type Handler = (command: unknown) => Promise<{ output: unknown }>;

/** The stack methods that change what a resolved chain holds. */
const MUTATORS = ['add', 'addRelativeTo', 'use', 'remove', 'removeByTag', 'identifyOnResolve'] as const;

/** Key of a stack's change count (a symbol from the global registry: two library copies share it). */
const GENERATION: unique symbol = Symbol.for('cronfence.middlewareStackGeneration');

type CountedStack = Record<string, unknown> & { [GENERATION]?: number };

/**
 * Count the changes of `stack` from now on (idempotent): each mutating method is wrapped on this stack
 * object to add one to its count, then do what it did.
 * @returns the stack's current count
 */
function counted(stack: CountedStack): number {
  if (stack[GENERATION] === undefined) {
    stack[GENERATION] = 0;
    for (const name of MUTATORS) {
      const original = stack[name];
      if (typeof original !== 'function') continue;
      // `identifyOnResolve()` without an argument only reads the setting (the SDK reads it at every
      // resolve): only a call that sets it counts.
      const reads = name === 'identifyOnResolve';
      stack[name] = function (this: unknown, ...args: unknown[]) {
        if (!reads || args.length > 0) stack[GENERATION] = (stack[GENERATION] ?? 0) + 1;
        return (original as (...a: unknown[]) => unknown).apply(this, args);
      };
    }
  }
  return stack[GENERATION] as number;
}

interface Resolved {
  readonly stack: unknown;
  readonly configuration: unknown;
  /** What a chain takes from the configuration when it is resolved (compared at every send). */
  readonly requestHandler: unknown;
  readonly logger: unknown;
  readonly generation: number;
  readonly handler: Handler;
}

/** The configuration's members a resolved chain holds on to. */
type Configured = { readonly requestHandler?: unknown; readonly logger?: unknown };

/** Key of the sender a command is sent by (own property of the command, see {@link resolveThroughCache}). */
const SENDER: unique symbol = Symbol('cronfence.resolvedSender');

/** Key marking a command this sender made and reuses ({@link ResolvedSender.command}): never given middleware. */
const REUSED: unique symbol = Symbol('cronfence.reusedCommand');

/** Key set on a reused command while it waits in the idle list (handing it back twice keeps it once). */
const IDLE: unique symbol = Symbol('cronfence.idleCommand');

type SentCommand = ResolvableCommand & {
  [SENDER]?: ResolvedSender;
  [REUSED]?: true;
  [IDLE]?: boolean;
  input: unknown;
};

/** A low-level command class of `@aws-sdk/client-dynamodb` (`new UpdateItemCommand(input)`). */
export type CommandClass = new (input: never) => object;

/** Most idle commands kept per class for reuse: what concurrent sends of one class need at once. */
const IDLE_PER_CLASS = 16;

/**
 * Sends low-level commands on one client, each command class through a handler resolved once (see the
 * module comment for what is shared and when a command resolves as usual).
 */
export class ResolvedSender {
  private readonly handlers = new Map<unknown, Resolved>();
  /** Commands made by {@link command} whose send has settled, per class, ready for the next input. */
  private readonly idle = new Map<CommandClass, SentCommand[]>();

  constructor(private readonly client: DynamoDBClient) {}

  /**
   * `client.send(command, options)`, its middleware chain taken from this sender's cache when `options`
   * has no abort signal and `tables` (the table names the command addresses) are all plain names.
   * @throws whatever `client.send` throws (service errors, network, an aborted send)
   */
  send<O>(
    command: object,
    tables: readonly string[],
    options?: { readonly abortSignal?: AbortSignal },
  ): Promise<O> {
    if (options?.abortSignal !== undefined || tables.some((t) => t.includes(':')))
      return this.client.send(command as never, options) as Promise<O>;
    const c = command as SentCommand;
    if (c[REUSED] !== true) {
      c[SENDER] = this;
      c.resolveMiddleware = resolveThroughCache;
    }
    return this.client.send(command as never) as Promise<O>;
  }

  /**
   * `new Command(input)` for {@link send}, or, where {@link send} takes the chain from the cache, a
   * command of the class this sender made for an earlier send that has settled, given `input`
   * (constructing one builds a middleware stack of its own, ~10 µs on a cold path, that such a send
   * never uses). Its class's chain is resolved on another instance, so its own stack stays empty; one
   * given middleware of its own (by something wrapping `client.send`) resolves its own chain, as
   * `client.send` does, and is not reused. Hand it back with {@link settled} once its send has settled
   * (every middleware reads the input it was sent with until then); a command not handed back is
   * simply not reused. Whatever keeps a sent command past its send sees the next request's input on it.
   */
  command(
    Command: CommandClass,
    input: object,
    tables: readonly string[],
    options?: { readonly abortSignal?: AbortSignal },
  ): object {
    if (options?.abortSignal !== undefined || tables.some((t) => t.includes(':')))
      return new Command(input as never);
    const c = this.idle.get(Command)?.pop();
    if (c !== undefined) {
      c[IDLE] = false;
      c.input = input;
      return c;
    }
    const made = new Command(input as never) as SentCommand;
    made[SENDER] = this;
    made[REUSED] = true;
    made.resolveMiddleware = resolveThroughCache;
    // Its stack's changes are counted: a command given middleware of its own (by whatever wraps
    // `client.send`) resolves its own chain, as `client.send` does, and is not reused.
    counted(made.middlewareStack as unknown as CountedStack);
    return made;
  }

  /** A command of {@link command} whose send has settled: kept for the next send of its class. */
  settled(command: object): void {
    const c = command as SentCommand;
    if (c[REUSED] !== true || c[SENDER] !== this || c[IDLE] === true || hasOwnMiddleware(c)) return;
    c[IDLE] = true;
    const Command = c.constructor as CommandClass;
    const free = this.idle.get(Command);
    if (free === undefined) this.idle.set(Command, [c]);
    else if (free.length < IDLE_PER_CLASS) free.push(c);
  }

  /**
   * The chain `client.send` asks `command` for: the cached one of its class, resolved again when the
   * stack or configuration is another object or the stack changed; the command's own resolution when it
   * was sent with options or carries middleware of its own. A reused command's chain is resolved on a
   * new instance of its class, so its own stack stays empty.
   */
  resolve(command: SentCommand, stack: unknown, configuration: unknown, options: unknown): Handler {
    const own = (Object.getPrototypeOf(command) as ResolvableCommand).resolveMiddleware;
    const reused = command[REUSED] === true;
    if (
      options !== undefined ||
      (reused ? hasOwnMiddleware(command) : command.middlewareStack.identify().length > 0)
    )
      return own.call(command, stack, configuration, options);
    const generation = counted(stack as CountedStack);
    const { requestHandler, logger } = configuration as Configured;
    const key = command.constructor;
    const known = this.handlers.get(key);
    if (
      known !== undefined &&
      known.stack === stack &&
      known.configuration === configuration &&
      known.requestHandler === requestHandler &&
      known.logger === logger &&
      known.generation === generation
    )
      return known.handler;
    const on = reused ? new (command.constructor as CommandClass)({} as never) : command;
    const handler = own.call(on, stack, configuration, undefined);
    this.handlers.set(key, { stack, configuration, requestHandler, logger, generation, handler });
    return handler;
  }
}

/** True once a reused command's own stack was changed (its changes are counted from when it was made). */
function hasOwnMiddleware(command: SentCommand): boolean {
  return (command.middlewareStack as unknown as CountedStack)[GENERATION] !== 0;
}

/** A sent command's `resolveMiddleware` (one function for all): asks the command's sender. */
function resolveThroughCache(
  this: SentCommand,
  stack: unknown,
  configuration: unknown,
  options: unknown,
): Handler {
  return (this[SENDER] as ResolvedSender).resolve(this, stack, configuration, options);
}
