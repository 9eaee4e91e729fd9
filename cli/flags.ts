/**
 * The operator API's options as the CLI's flags. The API's messages name its options (`beforeStart`,
 * `expect`: it is called from code); the CLI renders an error with the flag its user typed instead.
 */
import { showValue } from '../lib/core/show-value.js';
import { EndpointUnreachableError, InvalidArgumentError } from '../lib/errors.js';

/** The CLI flag of each operator API option a message may name. */
export const CLI_FLAGS: Readonly<Record<string, string>> = {
  as: '--as',
  beforeStart: '--before-start',
  by: '--by',
  endpoint: '--endpoint',
  expect: '--expect',
  failed: '--failed',
  from: '--from',
  functionName: '--function',
  invokeAws: '--invoke-aws',
  local: '--local',
  note: '--note',
  outcome: '--outcome',
  profile: '--profile',
  reason: '--reason',
  region: '--region',
  requestedBy: '--requested-by',
  scheduleGroup: '--schedule-group',
  shard: '--shard',
  slot: '--slot',
  status: '--status',
  table: '--table',
  to: '--to',
  untilMs: '--until',
  yes: '--yes',
};

/** `from/to` (two options named together) as `--from/--to`; a name that is no option stays. */
function flagOf(name: string): string {
  const parts = name.split('/');
  return parts.every((p) => CLI_FLAGS[p] !== undefined) ? parts.map((p) => CLI_FLAGS[p]).join('/') : name;
}

/** Each option the text names in code style (`` `beforeStart` ``, `` `yes: true` ``) as its flag. */
export function withFlags(text: string): string {
  return text.replace(/`([A-Za-z]+(?:\/[A-Za-z]+)?)(?:: true)?`/g, (whole, name: string) => {
    const flag = flagOf(name);
    return flag === name ? whole : flag;
  });
}

/**
 * An error's message as the CLI prints it: an invalid API option (or the `endpoint` that cannot be
 * reached) is named by its flag, and every option the message names in code style by its flag.
 * @example cliMessage(new InvalidArgumentError('to', '2026-03-01', 'is before `from` 2026-03-05'));
 * // 'invalid --to "2026-03-01": is before --from 2026-03-05'
 */
export function cliMessage(err: unknown): string {
  if (err instanceof InvalidArgumentError)
    return `invalid ${flagOf(err.argument)} ${showValue(err.value)}: ${withFlags(err.problem)}`;
  if (err instanceof EndpointUnreachableError && err.message.startsWith(`${err.variable} `))
    return withFlags(`${flagOf(err.variable)}${err.message.slice(err.variable.length)}`);
  return withFlags((err as Error)?.message ?? String(err));
}
