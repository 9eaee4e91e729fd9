/**
 * Argument parsers shared by CLI subcommands: each names the flag and the bad value.
 */
import { accessSync, constants, existsSync, type Stats, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { InvalidArgumentError as CommanderArgumentError } from 'commander';
import { InvalidArgumentError } from '../lib/errors.js';
import { EARLIEST_MS, EARLIEST_REASON } from '../operate/input.js';

/**
 * The problem with an instant before {@link EARLIEST_MS}, or undefined: a range reaching before it
 * would be cut silently, an instant before it names nothing that ran.
 */
export function beforeEarliest(ms: number): string | undefined {
  return ms < EARLIEST_MS ? `is ${EARLIEST_REASON}` : undefined;
}

/** A well-formed date or instant before {@link EARLIEST_MS} (its own message, kept by {@link sinceArg}). */
class BeforeEarliestError extends CommanderArgumentError {}

/**
 * A UTC date (`yyyy-mm-dd`) or an ISO-8601 instant with a zone, as epoch ms; impossible dates (02-30)
 * and instants before 1970-01-01T00:00:00Z ({@link beforeEarliest}) rejected.
 */
export function instantArg(flag: string) {
  return (value: string): number => {
    const m =
      /^(\d{4})-(\d{2})-(\d{2})(?:$|T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,3})?)?(?:Z|[+-]\d{2}:\d{2})$)/.exec(value);
    const ms = Date.parse(value.length === 10 ? `${value}T00:00:00Z` : value);
    const [y, mo, d] = [Number(m?.[1]), Number(m?.[2]), Number(m?.[3])];
    const real =
      m !== null && mo >= 1 && mo <= 12 && d >= 1 && d <= new Date(Date.UTC(y, mo, 0)).getUTCDate();
    if (!real || Number.isNaN(ms)) {
      throw new CommanderArgumentError(
        `${flag} ${JSON.stringify(value)} is not a real date (yyyy-mm-dd, UTC, or an ISO-8601 instant with a zone)`,
      );
    }
    const early = beforeEarliest(ms);
    if (early !== undefined) throw new BeforeEarliestError(`${flag} ${JSON.stringify(value)} ${early}`);
    return ms;
  };
}

/** A range bound: a whole UTC day (`yyyy-mm-dd`) or one instant. */
export interface DayOrInstant {
  /** First instant it covers, epoch ms (00:00:00.000Z for a day). */
  readonly firstMs: number;
  /** Last instant it covers, epoch ms (23:59:59.999Z for a day; `firstMs` for an instant). */
  readonly lastMs: number;
}

/**
 * A whole UTC day (`yyyy-mm-dd`) or an ISO-8601 instant with a zone, for inclusive ranges: `--from D`
 * starts at D's first instant, `--to D` ends at D's last, so `--from D --to D` is the whole day D.
 * @throws InvalidArgumentError naming the flag and value for an impossible date or a zone-less time.
 */
export function dayOrInstantArg(flag: string) {
  const instant = instantArg(flag);
  return (value: string): DayOrInstant => {
    const firstMs = instant(value);
    return { firstMs, lastMs: value.length === 10 ? firstMs + 86_400_000 - 1 : firstMs };
  };
}

/** An integer in [min, max]. */
export function intArg(flag: string, min: number, max: number) {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < min || n > max) {
      throw new CommanderArgumentError(
        `${flag} ${JSON.stringify(value)} must be an integer from ${min} to ${max}`,
      );
    }
    return n;
  };
}

const AGE = /^(\d+)(m|h|d)$/;
const AGE_MS: Record<string, number> = { m: 60_000, h: 3_600_000, d: 86_400_000 };

/** An age (`90m`, `24h`, `7d`) before now, or a UTC date / ISO instant, as epoch ms. */
export function sinceArg(flag: string, nowMs: () => number = Date.now) {
  const absolute = instantArg(flag);
  return (value: string): number => {
    const m = AGE.exec(value);
    if (m) return nowMs() - Number(m[1]) * (AGE_MS[m[2] as string] ?? 0);
    try {
      return absolute(value);
    } catch (err) {
      // A real date before 1970 keeps its own message; anything else is neither an age nor a date.
      if (err instanceof BeforeEarliestError) throw err;
      throw new CommanderArgumentError(
        `${flag} ${JSON.stringify(value)} is not an age (30m, 24h, 7d) or a date (yyyy-mm-dd or ISO-8601 instant)`,
      );
    }
  };
}

/** A comma-separated list whose items must be among `allowed`. */
export function listArg(flag: string, allowed: readonly string[]) {
  return (value: string): string[] => {
    const items = value
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    const bad = items.find((i) => !allowed.includes(i));
    if (bad !== undefined || items.length === 0) {
      throw new CommanderArgumentError(
        `${flag} ${JSON.stringify(bad ?? value)} is not one of ${allowed.join(', ')} (comma-separated)`,
      );
    }
    return [...new Set(items)];
  };
}

/** One of `allowed`. */
export function choiceArg(flag: string, allowed: readonly string[]) {
  return (value: string): string => {
    if (!allowed.includes(value)) {
      throw new CommanderArgumentError(
        `${flag} ${JSON.stringify(value)} must be one of ${allowed.join(', ')}`,
      );
    }
    return value;
  };
}

/** A job name (1-64 of A-Z a-z 0-9 _ -, starting with a letter). */
export function jobNameArg(flag: string) {
  return (value: string): string => {
    if (!/^[A-Za-z][A-Za-z0-9_-]{0,63}$/.test(value)) {
      throw new CommanderArgumentError(`${flag} ${JSON.stringify(value)} is not a job name`);
    }
    return value;
  };
}

/**
 * A slot id or a prefix of one: `yyyy`, `yyyy-MM`, `yyyy-MM-dd`, `yyyy-MM-ddTHH`, `yyyy-MM-ddTHH:mm`
 * (cron, local) or a full UTC instant id `yyyy-MM-ddTHH:mm:ssZ` (rate/at); the date part must be real.
 */
export function slotArg(flag: string) {
  return (value: string): string => {
    const m = /^(\d{4})(?:-(\d{2})(?:-(\d{2})(?:T(\d{2})(?::(\d{2})(?::(\d{2})Z)?)?)?)?)?$/.exec(value);
    const [y, mo, d, h, mi, se] = (m ?? []).slice(1).map((x) => (x === undefined ? undefined : Number(x)));
    const ok =
      m !== null &&
      (mo === undefined || (mo >= 1 && mo <= 12)) &&
      (d === undefined || (d >= 1 && d <= new Date(Date.UTC(Number(y), Number(mo), 0)).getUTCDate())) &&
      (h === undefined || h <= 23) &&
      (mi === undefined || mi <= 59) &&
      (se === undefined || se <= 59);
    if (!ok) {
      throw new CommanderArgumentError(
        `${flag} ${JSON.stringify(value)} is not a slot id or a prefix of one (e.g. 2026-03-28 or 2026-03-28T02:30)`,
      );
    }
    return value;
  };
}

function problemWithDir(dir: string): string | undefined {
  let stat: Stats;
  try {
    stat = statSync(dir);
  } catch {
    return `directory ${dir} does not exist`;
  }
  if (!stat.isDirectory()) return `${dir} is not a directory`;
  try {
    accessSync(dir, constants.W_OK);
  } catch {
    return `directory ${dir} is not writable`;
  }
  return undefined;
}

/**
 * A file the command will write (`report --out`), checked before anything is read: its directory
 * exists and is writable, and the path is not a directory (nor an existing file this user cannot write).
 * @returns the absolute path.
 * @throws InvalidArgumentError (lib/errors: exit 2) naming `flag` and the value.
 */
export function writableFile(flag: string, value: string): string {
  const file = resolve(value);
  const stat = statSync(file, { throwIfNoEntry: false });
  if (stat?.isDirectory()) throw new InvalidArgumentError(flag, value, 'is a directory: name a file');
  const problem = problemWithDir(dirname(file));
  if (problem) throw new InvalidArgumentError(flag, value, problem);
  if (stat) {
    try {
      accessSync(file, constants.W_OK);
    } catch {
      throw new InvalidArgumentError(flag, value, 'exists and is not writable');
    }
  }
  return file;
}

/**
 * A directory the command will create if missing (`mkdir -p`) and write files into (`drill --report`,
 * `explore --report`), checked before anything runs: the path is a directory or does not exist yet,
 * and its nearest existing ancestor is a writable directory.
 * @returns a commander parser (its error exits 2 naming `flag` and the value) giving the absolute path.
 */
export function writableDirArg(flag: string) {
  return (value: string): string => {
    const dir = resolve(value);
    let existing = dir;
    while (!existsSync(existing) && dirname(existing) !== existing) existing = dirname(existing);
    const problem = problemWithDir(existing);
    if (problem) throw new CommanderArgumentError(`${flag} ${JSON.stringify(value)}: ${problem}`);
    return dir;
  };
}
