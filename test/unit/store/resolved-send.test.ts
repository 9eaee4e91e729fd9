/**
 * The protocol's low-level commands go through a middleware chain resolved once per command class
 * (lib/store/protocol/resolved-send.ts). Unit: a request handler that answers every request `{}`
 * (HTTP 200, the body UpdateItem, PutItem and TransactWriteItems return without `ReturnValues`, per the
 * DynamoDB API reference), no DynamoDB. Resolutions are counted on command subclasses.
 */
import { UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { createDocumentClient } from '../../../lib/store/client.js';
import { DynamoBackend } from '../../../lib/store/protocol/dynamo-backend.js';
import { notExists } from '../../../lib/store/protocol/expression.js';
import { ResolvedSender } from '../../../lib/store/protocol/resolved-send.js';
import { answerEmpty } from '../../helpers/answer-empty.js';

/** Answers as {@link answerEmpty} does, after a turn of the event loop: sends started together overlap. */
const answerNextTurn = {
  ...answerEmpty,
  handle: () => new Promise((r) => setImmediate(() => r(answerEmpty.handle()))),
};

function client(requestHandler: object = answerEmpty) {
  return createDocumentClient({
    endpoint: 'http://127.0.0.1:9',
    credentials: { accessKeyId: 'k', secretAccessKey: 's' },
    requestHandler: requestHandler as never,
  });
}

/** The expression value `name` of a middleware's `args.input` (its `N` or `S`). */
function expressionValue(args: { input: unknown }, name: string): string {
  const values = (args.input as { ExpressionAttributeValues?: Record<string, { N?: string; S?: string }> })
    .ExpressionAttributeValues;
  return String(values?.[name]?.N ?? values?.[name]?.S);
}

/** The expression value `name` every request carried, as the `build` step (after serialisation) saw it. */
function recordingValues(doc: ReturnType<typeof client>, name = ':v'): string[] {
  const values: string[] = [];
  doc.middlewareStack.add(
    (next) => (args) => {
      values.push(expressionValue(args, name));
      return next(args);
    },
    { step: 'build', name: 'recordValues' },
  );
  return values;
}

/** An UpdateItem whose class counts how often a chain is resolved for it. */
function countingCommand() {
  const counter = { resolves: 0 };
  class Counted extends UpdateItemCommand {
    override resolveMiddleware(...args: Parameters<UpdateItemCommand['resolveMiddleware']>) {
      counter.resolves++;
      return super.resolveMiddleware(...args);
    }
  }
  const make = (table = 'lib') =>
    new Counted({
      TableName: table,
      Key: { pk: { S: 'JOB#a' }, sk: { S: 'LEASE' } },
      UpdateExpression: 'SET #v = :v',
      ExpressionAttributeNames: { '#v': 'v' },
      ExpressionAttributeValues: { ':v': { N: '1' } },
    });
  return { counter, make };
}

/** A middleware counting the UpdateItem requests it sees. */
function seeing(doc: ReturnType<typeof client>, name: string) {
  const seen = { n: 0 };
  doc.middlewareStack.add(
    (next) => (args) => {
      seen.n++;
      return next(args);
    },
    { step: 'initialize', name },
  );
  return seen;
}

describe('sending through a chain resolved once per command class', () => {
  it('resolves the chain once for many sends, and every send passes every middleware', async () => {
    const doc = client();
    const seen = seeing(doc, 'countAll');
    const sender = new ResolvedSender(doc as never);
    const { counter, make } = countingCommand();
    for (let i = 0; i < 5; i++) await sender.send(make(), ['lib']);
    expect(counter.resolves).toBe(1);
    expect(seen.n).toBe(5);
  });

  it('every send goes through client.send (what tracers wrap), only the chain comes from the cache', async () => {
    const doc = client();
    const sent: string[] = [];
    const send = doc.send.bind(doc);
    doc.send = ((command: { constructor: { name: string } }, ...rest: unknown[]) => {
      sent.push(command.constructor.name);
      return (send as (...a: unknown[]) => unknown)(command, ...rest);
    }) as typeof doc.send;
    const sender = new ResolvedSender(doc as never);
    const { counter, make } = countingCommand();
    for (let i = 0; i < 3; i++) await sender.send(make(), ['lib']);
    expect(sent).toEqual(['Counted', 'Counted', 'Counted']);
    expect(counter.resolves).toBe(1);
  });

  it('a command carrying middleware of its own resolves its own chain, and that middleware runs', async () => {
    const doc = client();
    const sender = new ResolvedSender(doc as never);
    const { counter, make } = countingCommand();
    await sender.send(make(), ['lib']);
    const own = make();
    let ran = 0;
    own.middlewareStack.add(
      (next) => (args) => {
        ran++;
        return next(args);
      },
      { step: 'initialize', name: 'commandOwn' },
    );
    await sender.send(own, ['lib']);
    expect(ran).toBe(1);
    expect(counter.resolves).toBe(2);
    // The next plain command still takes the cached chain, without the other command's middleware.
    await sender.send(make(), ['lib']);
    expect(ran).toBe(1);
    expect(counter.resolves).toBe(2);
  });

  it('a middleware added or removed after a send is seen by the next one', async () => {
    const doc = client();
    const sender = new ResolvedSender(doc as never);
    const { counter, make } = countingCommand();
    await sender.send(make(), ['lib']);
    const later = seeing(doc, 'addedLater');
    await sender.send(make(), ['lib']);
    await sender.send(make(), ['lib']);
    expect(later.n).toBe(2);
    expect(counter.resolves).toBe(2);
    doc.middlewareStack.remove('addedLater');
    await sender.send(make(), ['lib']);
    expect(later.n).toBe(2);
    expect(counter.resolves).toBe(3);
  });

  it('a request handler replaced on the configuration resolves again and takes the requests', async () => {
    const doc = client();
    const sender = new ResolvedSender(doc as never);
    const { counter, make } = countingCommand();
    await sender.send(make(), ['lib']);
    let handled = 0;
    (doc.config as { requestHandler: unknown }).requestHandler = {
      ...answerEmpty,
      handle: async () => {
        handled++;
        return answerEmpty.handle();
      },
    };
    await sender.send(make(), ['lib']);
    expect(handled).toBe(1);
    expect(counter.resolves).toBe(2);
  });

  it('reading identifyOnResolve keeps the chain; setting it resolves again', async () => {
    const doc = client();
    const sender = new ResolvedSender(doc as never);
    const { counter, make } = countingCommand();
    await sender.send(make(), ['lib']);
    doc.middlewareStack.identifyOnResolve();
    await sender.send(make(), ['lib']);
    expect(counter.resolves).toBe(1);
    doc.middlewareStack.identifyOnResolve(false);
    await sender.send(make(), ['lib']);
    expect(counter.resolves).toBe(2);
  });

  it('a send with an abort signal, or naming a table by ARN, goes through client.send', async () => {
    const doc = client();
    const seen = seeing(doc, 'countAll');
    const sender = new ResolvedSender(doc as never);
    const { counter, make } = countingCommand();
    await sender.send(make(), ['lib']);
    await sender.send(make(), ['lib'], { abortSignal: new AbortController().signal });
    const arn = 'arn:aws:dynamodb:us-east-1:111122223333:table/orders';
    await sender.send(make(arn), ['lib', arn]);
    // One cached chain, plus one resolution per uncached send; every send passed the middleware.
    expect(counter.resolves).toBe(3);
    expect(seen.n).toBe(3);
    // The cached chain is still used afterwards.
    await sender.send(make(), ['lib']);
    expect(counter.resolves).toBe(3);
  });

  it('each request carries its own input through the cached chain', async () => {
    const doc = client();
    const inputs = recordingValues(doc);
    const sender = new ResolvedSender(doc as never);
    const { make } = countingCommand();
    await Promise.all(
      [1, 2, 3].map((n) => {
        const c = make();
        (c.input.ExpressionAttributeValues as Record<string, { N: string }>)[':v'] = { N: String(n) };
        return sender.send(c, ['lib']);
      }),
    );
    expect(inputs.sort()).toEqual(['1', '2', '3']);
  });
});

describe('commands reused once their send has settled', () => {
  const input = (n: number) => ({
    TableName: 'lib',
    Key: { pk: { S: 'JOB#a' }, sk: { S: 'LEASE' } },
    UpdateExpression: 'SET #v = :v',
    ExpressionAttributeNames: { '#v': 'v' },
    ExpressionAttributeValues: { ':v': { N: String(n) } },
  });

  it('a settled command is given the next input, sends it, and never gets middleware of its own', async () => {
    const doc = client();
    const inputs = recordingValues(doc);
    const sender = new ResolvedSender(doc as never);
    const first = sender.command(UpdateItemCommand, input(1), ['lib']);
    await sender.send(first, ['lib']);
    sender.settled(first);
    const second = sender.command(UpdateItemCommand, input(2), ['lib']);
    expect(second).toBe(first);
    await sender.send(second, ['lib']);
    sender.settled(second);
    expect(inputs).toEqual(['1', '2']);
    expect((first as UpdateItemCommand).middlewareStack.identify()).toEqual([]);
  });

  it('sends in flight at once each get a command of their own, and each request keeps its input', async () => {
    const doc = client(answerNextTurn);
    const inputs = recordingValues(doc);
    const sender = new ResolvedSender(doc as never);
    // One command idle: of three taken at once, one is that one and two are new.
    const idle = sender.command(UpdateItemCommand, input(0), ['lib']);
    await sender.send(idle, ['lib']);
    sender.settled(idle);
    const commands = [1, 2, 3].map((n) => sender.command(UpdateItemCommand, input(n), ['lib']));
    expect(commands[0]).toBe(idle);
    expect(new Set(commands).size).toBe(3);
    await Promise.all(commands.map((c) => sender.send(c, ['lib']).finally(() => sender.settled(c))));
    // Three idle now: three more at once reuse them, and their inputs still arrive as given.
    const again = [4, 5, 6].map((n) => sender.command(UpdateItemCommand, input(n), ['lib']));
    expect(new Set([...commands, ...again]).size).toBe(3);
    await Promise.all(again.map((c) => sender.send(c, ['lib'])));
    expect(inputs.sort()).toEqual(['0', '1', '2', '3', '4', '5', '6']);
  });

  it('a command handed back twice is kept once: the next two sends get two commands', async () => {
    const doc = client();
    const sender = new ResolvedSender(doc as never);
    const c = sender.command(UpdateItemCommand, input(1), ['lib']);
    await sender.send(c, ['lib']);
    sender.settled(c);
    sender.settled(c);
    const a = sender.command(UpdateItemCommand, input(2), ['lib']);
    const b = sender.command(UpdateItemCommand, input(3), ['lib']);
    expect(a).toBe(c);
    expect(b).not.toBe(c);
  });

  it('a send with an abort signal, or naming a table by ARN, gets a new command every time', async () => {
    const doc = client();
    const sender = new ResolvedSender(doc as never);
    const abortSignal = new AbortController().signal;
    const a = sender.command(UpdateItemCommand, input(1), ['lib'], { abortSignal });
    await sender.send(a, ['lib'], { abortSignal });
    sender.settled(a);
    const arn = 'arn:aws:dynamodb:us-east-1:111122223333:table/orders';
    const b = sender.command(UpdateItemCommand, { ...input(2), TableName: arn }, [arn]);
    await sender.send(b, [arn]);
    sender.settled(b);
    const c = sender.command(UpdateItemCommand, input(3), ['lib'], { abortSignal });
    expect(new Set([a, b, c]).size).toBe(3);
  });

  it('a command given middleware of its own by a wrapper of send runs it, as client.send would, and is not reused', async () => {
    const doc = client();
    const sender = new ResolvedSender(doc as never);
    const send = doc.send.bind(doc);
    let ran = 0;
    const kept: string[] = [];
    // A tracer-like wrapper: adds a named middleware to every command it is given.
    doc.send = ((command: UpdateItemCommand, ...rest: unknown[]) => {
      command.middlewareStack.add(
        (next) => (args) => {
          ran++;
          kept.push(expressionValue(args, ':v'));
          return next(args);
        },
        { step: 'build', name: 'tracer' },
      );
      return (send as (...a: unknown[]) => unknown)(command, ...rest);
    }) as typeof doc.send;
    const made: object[] = [];
    for (const n of [1, 2, 3]) {
      const c = sender.command(UpdateItemCommand, input(n), ['lib']);
      made.push(c);
      await sender.send(c, ['lib']);
      sender.settled(c);
    }
    expect(ran).toBe(3);
    expect(kept).toEqual(['1', '2', '3']);
    expect(new Set(made).size).toBe(3);
  });
});

describe('the DynamoDB backend hands a command back only once its send has settled', () => {
  it('writes in flight at once each send their own values', async () => {
    const doc = client(answerNextTurn);
    const sent = recordingValues(doc, ':v0');
    const backend = new DynamoBackend(doc);
    const write = (v: string) =>
      backend.send({
        tag: { op: 'test', name: 'test', table: 'lib', key: { pk: 'JOB#a', sk: 'LEASE' } } as never,
        label: `write ${v}`,
        writes: [
          {
            kind: 'update',
            table: 'lib',
            key: { pk: 'JOB#a', sk: 'LEASE' },
            condition: notExists('v'),
            update: { set: { v } },
          },
        ],
      });
    for (let round = 0; round < 3; round++)
      await Promise.all(['a', 'b', 'c'].map((v) => write(`${v}${round}`)));
    expect(sent.sort()).toEqual(['a0', 'a1', 'a2', 'b0', 'b1', 'b2', 'c0', 'c1', 'c2']);
  });
});
