/**
 * The small state file `npm start` leaves while it runs (`.cronfence/local.json` in the working
 * directory: DynamoDB Local's endpoint and the table names), so the `cronfence` CLI finds the local
 * stack without flags. Removed when `npm start` exits; a file whose process is gone is ignored.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

/** Directory (relative to the working directory) and file name of the state file. */
export const LOCAL_STATE_PATH = join('.cronfence', 'local.json');

/** What the state file holds. */
export interface LocalState {
  /** DynamoDB endpoint `npm start` uses, e.g. `http://127.0.0.1:8123`. */
  readonly endpoint: string;
  /** Region the local clients use. */
  readonly region: string;
  /** Physical table names by the schema's environment variable (`CRONFENCE_TABLE`, `REPORTS_TABLE`, ...). */
  readonly tables: Readonly<Record<string, string>>;
  /** PID of the `npm start` process that wrote it. */
  readonly pid: number;
  /** When it was written, ISO-8601. */
  readonly startedAt: string;
}

/**
 * Write the state file under `dir` (default: the working directory), unless another live `npm start`
 * owns it (the CLI keeps talking to that one).
 * @returns its path, or `{ ownedBy }` naming the live owner's PID when not written.
 */
export function writeLocalState(
  state: LocalState,
  dir: string = process.cwd(),
): string | { ownedBy: number } {
  const path = resolve(dir, LOCAL_STATE_PATH);
  try {
    const existing = JSON.parse(readFileSync(path, 'utf8')) as LocalState;
    if (existing.pid !== state.pid && alive(existing.pid)) return { ownedBy: existing.pid };
  } catch {
    // no file (or unreadable): ours to write
  }
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${JSON.stringify(state, null, 2)}\n`);
  return path;
}

/** Remove the state file at `path` if it is still ours (same PID). Never throws. */
export function removeLocalState(path: string, pid: number = process.pid): void {
  try {
    const state = JSON.parse(readFileSync(path, 'utf8')) as LocalState;
    if (state.pid === pid) rmSync(path, { force: true });
  } catch {
    // already gone or unreadable: nothing to clean up
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Find the state file of a running `npm start`: in `from` or the nearest parent directory holding
 * `.cronfence/local.json` whose writer process is still alive.
 * @returns the state and its path, or undefined.
 */
export function findLocalState(
  from: string = process.cwd(),
): { state: LocalState; path: string } | undefined {
  let dir = resolve(from);
  for (;;) {
    const path = join(dir, LOCAL_STATE_PATH);
    if (existsSync(path)) {
      try {
        const state = JSON.parse(readFileSync(path, 'utf8')) as LocalState;
        if (typeof state.endpoint === 'string' && Number.isInteger(state.pid) && alive(state.pid)) {
          return { state, path };
        }
      } catch {
        // unreadable: keep looking upwards
      }
    }
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}
