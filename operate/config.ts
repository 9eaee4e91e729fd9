/**
 * The project's cronfence settings, so `npx cronfence <command>` works in a user's project without
 * flags: `cronfence.config.json`, or a `"cronfence"` key in package.json, in the directory the CLI
 * runs from. Fields: `jobs` (module exporting the job handlers, relative to that directory; compiled
 * JavaScript, e.g. `./dist/jobs.js`), `stack` (the deployed CloudFormation stack: the CLI reads the
 * library table and the function names from its outputs), `table` (the library table's name, instead)
 * and `region`. Environment variables (`CRONFENCE_STACK`, `CRONFENCE_TABLE`, `AWS_REGION`) and flags
 * win over the file.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import * as v from 'valibot';
import { ConfigurationError } from '../lib/errors.js';

/** Name of the config file. */
export const CONFIG_FILE = 'cronfence.config.json';

const ConfigSchema = v.strictObject(
  {
    jobs: v.optional(v.pipe(v.string('must be a module path'), v.minLength(1, 'must not be empty'))),
    stack: v.optional(
      v.pipe(
        v.string('must be a CloudFormation stack name'),
        v.regex(
          /^[A-Za-z][A-Za-z0-9-]{0,127}$/,
          'must be a CloudFormation stack name (a letter, then letters, digits and hyphens; at most 128)',
        ),
      ),
    ),
    table: v.optional(
      v.pipe(
        v.string('must be a table name'),
        v.regex(/^[A-Za-z0-9_.-]{3,255}$/, 'must be a DynamoDB table name'),
      ),
    ),
    region: v.optional(
      v.pipe(
        v.string('must be a region'),
        v.regex(/^[a-z]{2}(-[a-z]+)+-\d+$/, 'must be an AWS region such as eu-central-1'),
      ),
    ),
  },
  'must be an object with optional "jobs", "stack", "table", "region"',
);

/** The settings found, with paths resolved. */
export interface ProjectConfig {
  /** Absolute path of the jobs module, when configured. */
  readonly jobs?: string;
  /** The deployed stack whose outputs name the library table and the functions. */
  readonly stack?: string;
  /** The library table's name. */
  readonly table?: string;
  /** AWS region. */
  readonly region?: string;
  /** Where the settings came from (`cronfence.config.json` or `package.json#cronfence`). */
  readonly source: string;
}

/**
 * Read the project's settings from `dir`.
 * @returns `undefined` when there is neither a config file nor a `cronfence` key in package.json.
 * @throws ConfigurationError naming the file and the field for unreadable JSON or a bad value.
 */
export function loadProjectConfig(dir: string): ProjectConfig | undefined {
  const file = join(dir, CONFIG_FILE);
  let raw: unknown;
  let source: string;
  if (existsSync(file)) {
    source = CONFIG_FILE;
    raw = parseJson(file, source);
  } else {
    const pkgFile = join(dir, 'package.json');
    if (!existsSync(pkgFile)) return undefined;
    const pkg = parseJson(pkgFile, 'package.json') as { cronfence?: unknown };
    if (pkg?.cronfence === undefined) return undefined;
    source = 'package.json#cronfence';
    raw = pkg.cronfence;
  }
  const result = v.safeParse(ConfigSchema, raw, { abortPipeEarly: true });
  if (!result.success) {
    const issue = result.issues[0];
    const path = (issue.path ?? []).map((p) => `.${String(p.key)}`).join('');
    throw new ConfigurationError(`${source}${path}`, issue.input, issue.message);
  }
  const c = result.output;
  return {
    source,
    ...(c.jobs !== undefined && { jobs: resolve(dir, c.jobs) }),
    ...(c.stack !== undefined && { stack: c.stack }),
    ...(c.table !== undefined && { table: c.table }),
    ...(c.region !== undefined && { region: c.region }),
  };
}

function parseJson(file: string, source: string): unknown {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch (cause) {
    throw new ConfigurationError(source, file, `is not valid JSON: ${(cause as Error).message}`, { cause });
  }
}

/** Which variables of an environment {@link applyProjectConfig} filled, and from which setting. */
const filledFrom = new WeakMap<NodeJS.ProcessEnv, Map<string, string>>();

/**
 * Put the config's stack, table and region into the environment the commands read (`CRONFENCE_STACK`,
 * `CRONFENCE_TABLE`, `AWS_REGION`), unless already set there.
 */
export function applyProjectConfig(config: ProjectConfig, env: NodeJS.ProcessEnv = process.env): void {
  const fill = (variable: string, field: string, value: string | undefined) => {
    if (value === undefined || env[variable] !== undefined) return;
    env[variable] = value;
    const from = filledFrom.get(env) ?? new Map<string, string>();
    from.set(variable, `${config.source}.${field}`);
    filledFrom.set(env, from);
  };
  fill('CRONFENCE_STACK', 'stack', config.stack);
  fill('CRONFENCE_TABLE', 'table', config.table);
  fill('AWS_REGION', 'region', config.region);
}

/**
 * How to name a setting in a message: the config field that filled `variable` (e.g.
 * `package.json#cronfence.stack`), else the variable itself.
 */
export function settingName(env: NodeJS.ProcessEnv, variable: string): string {
  return filledFrom.get(env)?.get(variable) ?? variable;
}
