/**
 * Argument parsers shared by CLI subcommands: each names the flag and the bad value.
 */
import { InvalidArgumentError } from 'commander';

/** A UTC date (`yyyy-mm-dd`) or an ISO-8601 instant, as epoch ms. */
export function instantArg(flag: string) {
  return (value: string): number => {
    const ms = Date.parse(/^\d{4}-\d{2}-\d{2}$/.test(value) ? `${value}T00:00:00Z` : value);
    if (!/^\d{4}-\d{2}-\d{2}/.test(value) || Number.isNaN(ms)) {
      throw new InvalidArgumentError(
        `${flag} ${JSON.stringify(value)} is not a date (yyyy-mm-dd or ISO-8601 instant)`,
      );
    }
    return ms;
  };
}

/** An integer in [min, max]. */
export function intArg(flag: string, min: number, max: number) {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < min || n > max) {
      throw new InvalidArgumentError(
        `${flag} ${JSON.stringify(value)} must be an integer from ${min} to ${max}`,
      );
    }
    return n;
  };
}
