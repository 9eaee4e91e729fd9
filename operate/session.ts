/**
 * What every operation runs on: a connection opened on first use (so bad input is refused before
 * any client exists or any request is sent) and the clock it reads.
 */
import type { JobHandler } from '../lib/runtime/define-job.js';
import type { Connection } from './connection.js';

/** A lazily opened connection and a clock. */
export interface Session {
  /** The connection, opened on the first call and shared after. @throws what `connect` throws */
  connection(): Promise<Connection>;
  /** Now, epoch ms. */
  now(): number;
}

/** A session that also knows the jobs' code (what a job handle runs on). */
export interface JobSession extends Session {
  /** The handler of job `name`. @throws InvalidArgumentError naming `<job>` and the known jobs */
  handler(name: string): Promise<JobHandler>;
  /** Refuse a broken library-table setting without connecting. @throws InvalidArgumentError */
  checkTableSetting(): void;
}
