/**
 * Where the operator API (and the CLI on it) reads and writes: DynamoDB Local or AWS. Resolution order for the endpoint:
 * `--endpoint`, `DYNAMODB_ENDPOINT`, then a running `npm start` (its `.cronfence/local.json`) unless
 * `--region`/`--profile` ask for AWS; without an endpoint, AWS with the SDK's region and credential chain.
 * Against AWS, a stack's name (`CRONFENCE_STACK`, or `"stack"` in the project config) is enough: the
 * library table and the functions come from its CloudFormation outputs (operate/stack-outputs.ts).
 */
import type { DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { findLocalState } from '../harness/local/local-state.js';
import { defaultFunctionName } from '../lib/core/job-definition.js';
import {
  checkedEndpoint,
  createDocumentClient,
  DYNAMODB_ENDPOINT_ENV,
  dynamoEndpointFromEnv,
  nameUnreachableEndpoint,
} from '../lib/store/client.js';
import { libraryTable } from '../lib/store/schema.js';
import { settingName } from './config.js';
import { usage } from './input.js';
import { readStackSettings, STACK_ENV, type StackSettings, stackJobFunction } from './stack-outputs.js';

/**
 * Where to connect (the CLI's `--endpoint`, `--region`, `--profile`, `--table`); every field optional,
 * each falling back as the module's summary says.
 */
export interface ConnectionOptions {
  /** DynamoDB endpoint URL (DynamoDB Local). @default `DYNAMODB_ENDPOINT`, then `.cronfence/local.json` */
  readonly endpoint?: string;
  /** AWS region. @default `AWS_REGION` / the profile's */
  readonly region?: string;
  /** AWS shared-config profile. @default `AWS_PROFILE` / the SDK's default chain */
  readonly profile?: string;
  /** Library table name. @default `CRONFENCE_TABLE`, then the stack's output, then `cronfence` */
  readonly table?: string;
}

/** An open connection to the library table. */
export interface Connection {
  readonly doc: DynamoDBDocumentClient;
  readonly tableName: string;
  /** `local` when an endpoint is used (DynamoDB Local), else `aws`. */
  readonly mode: 'local' | 'aws';
  readonly endpoint?: string;
  /** Where the endpoint came from: the `endpoint` option, `DYNAMODB_ENDPOINT`, the state file's path, or `aws`. */
  readonly source: string;
  /** Table names by environment variable, from `npm start`'s state file (empty otherwise). */
  readonly tables: Readonly<Record<string, string>>;
  /** The app's other environment (payment provider, ...) from `npm start`'s state file (empty otherwise). */
  readonly appEnv: Readonly<Record<string, string>>;
  /** The deployed stack the table (and the functions) came from, when `CRONFENCE_STACK` named one. */
  readonly stack?: StackSettings;
  /**
   * The Lambda function a job runs as: the stack's (its `JobFunctionNames` output, else `<stack>-<job>`),
   * else `cronfence-<job>`.
   */
  functionName(job: string): string;
  /** Client settings to reuse for other AWS clients (Lambda): region, profile, credentials. */
  readonly clientConfig: {
    region?: string;
    profile?: string;
    credentials?: DynamoDBClientConfig['credentials'];
  };
  close(): void;
}

const LOCAL_CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' };

/**
 * Resolve flags into a connection. Against AWS, checks before any request that a region and
 * credentials resolve.
 * @throws InvalidArgumentError naming `endpoint`, `DYNAMODB_ENDPOINT` (empty or not a URL), `region`
 *   or `profile` (exit code 2). Requests on an endpoint that cannot be reached fail with
 *   EndpointUnreachableError naming where the endpoint came from and its value.
 */
export async function connect(
  flags: ConnectionOptions,
  env: NodeJS.ProcessEnv = process.env,
): Promise<Connection> {
  // An empty DYNAMODB_ENDPOINT is refused (naming it), never read as "unset".
  let endpoint = flags.endpoint ?? dynamoEndpointFromEnv(env);
  let source = flags.endpoint !== undefined ? 'endpoint' : endpoint ? DYNAMODB_ENDPOINT_ENV : 'aws';
  let tables: Record<string, string> = {};
  let appEnv: Record<string, string> = {};
  let stateRegion: string | undefined;
  if (!endpoint && !flags.region && !flags.profile) {
    const found = findLocalState();
    if (found) {
      endpoint = found.state.endpoint;
      source = found.path;
      tables = { ...found.state.tables };
      appEnv = { ...found.state.env };
      stateRegion = found.state.region;
    }
  }
  if (endpoint !== undefined) checkedEndpoint(flags.endpoint ? 'endpoint' : source, endpoint);
  // Checked before any request: a bad --table or CRONFENCE_TABLE is named even when a stack is set.
  let tableName = libraryTableName(flags, env, tables);
  const local = endpoint !== undefined;
  const stackName = stackFromEnv(env);
  const region = flags.region ?? (local ? (env.AWS_REGION ?? stateRegion ?? 'us-east-1') : undefined);
  const credentials =
    local && !flags.profile && !env.AWS_ACCESS_KEY_ID && !env.AWS_PROFILE ? LOCAL_CREDENTIALS : undefined;
  const clientConfig = {
    ...(region && { region }),
    ...(flags.profile && { profile: flags.profile }),
    ...(credentials && { credentials }),
  };
  // Every key explicit: an undefined region or credentials leave them to the SDK's chain (AWS mode).
  const doc = createDocumentClient({
    region,
    credentials,
    ...(flags.profile && { profile: flags.profile }),
    endpoint,
    maxAttempts: 3,
  });
  if (endpoint !== undefined)
    nameUnreachableEndpoint(
      doc,
      source,
      endpoint,
      `is DynamoDB Local up there? Start it with \`npm start -- --hold\`, or fix ${source === 'endpoint' ? '`endpoint`' : source}`,
    );
  let stack: StackSettings | undefined;
  if (!local) {
    await checkAws(doc, flags);
    if (stackName !== undefined) {
      stack = await readStackSettings(stackName, settingName(env, STACK_ENV), {
        region: await doc.config.region(),
        ...(flags.profile && { profile: flags.profile }),
        ...(env.AWS_ENDPOINT_URL_CLOUDFORMATION && { endpoint: env.AWS_ENDPOINT_URL_CLOUDFORMATION }),
      });
      // An explicit table (--table, CRONFENCE_TABLE or the config's "table") wins over the stack's.
      if (flags.table === undefined && env[libraryTable.envVar] === undefined) tableName = stack.libraryTable;
    }
  }
  const found = stack;
  return {
    doc,
    tableName,
    ...(found && { stack: found }),
    functionName: (job) => (found && stackJobFunction(found, job)) ?? defaultFunctionName(job),
    mode: local ? 'local' : 'aws',
    ...(endpoint && { endpoint }),
    source,
    tables,
    appEnv,
    clientConfig,
    close: () => doc.destroy(),
  };
}

/**
 * The library table's name: `--table`, else `CRONFENCE_TABLE`, else `npm start`'s, else the default.
 * @throws InvalidArgumentError naming `table` or `CRONFENCE_TABLE` when it is set but empty (a failed
 *   `$(aws cloudformation ...)` leaves it so).
 */
export function libraryTableName(
  flags: ConnectionOptions,
  env: NodeJS.ProcessEnv,
  tables: Readonly<Record<string, string>>,
): string {
  if (flags.table !== undefined && flags.table.trim() === '')
    throw usage('table', flags.table, 'is empty: pass the library table name');
  const fromEnv = env[libraryTable.envVar];
  if (flags.table === undefined && fromEnv !== undefined && fromEnv.trim() === '') {
    throw usage(
      libraryTable.envVar,
      fromEnv,
      `is set but empty (did the command that set it fail?): export ${libraryTable.envVar}=<LibraryTableName output>, unset it, or pass \`table\``,
    );
  }
  return flags.table ?? fromEnv ?? tables[libraryTable.envVar] ?? libraryTable.defaultName;
}

/**
 * The stack named by `CRONFENCE_STACK` (or the config's `stack`).
 * @throws InvalidArgumentError naming the setting when it is set but empty.
 */
function stackFromEnv(env: NodeJS.ProcessEnv): string | undefined {
  const value = env[STACK_ENV];
  if (value !== undefined && value.trim() === '')
    throw usage(
      settingName(env, STACK_ENV),
      value,
      'is set but empty: name the deployed CloudFormation stack, or unset it',
    );
  return value;
}

async function checkAws(client: DynamoDBDocumentClient, flags: ConnectionOptions): Promise<void> {
  // The SDK takes an empty AWS_REGION (or --region "") as a region and fails at the first request
  // with "Region is missing": refuse it here, naming where it came from.
  const region = await client.config.region().catch(() => undefined);
  if (!region) {
    const fromEnv = flags.region === undefined && process.env.AWS_REGION !== undefined;
    throw usage(
      fromEnv ? 'AWS_REGION' : 'region',
      (fromEnv ? process.env.AWS_REGION : flags.region) ?? '(unset)',
      'no AWS region: pass `region`, set AWS_REGION, or use `endpoint` for DynamoDB Local',
    );
  }
  try {
    await client.config.credentials();
  } catch (err) {
    client.destroy();
    // Named as the operator set it: --profile, else AWS_PROFILE, else the SDK's default chain.
    const profileFromEnv = flags.profile === undefined && process.env.AWS_PROFILE !== undefined;
    throw usage(
      profileFromEnv ? 'AWS_PROFILE' : 'profile',
      (profileFromEnv ? process.env.AWS_PROFILE : flags.profile) ?? '(default credential chain)',
      `no AWS credentials found (${(err as Error).message}): pass \`profile\`, set AWS_PROFILE or AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, or use \`endpoint\` for DynamoDB Local`,
    );
  }
}
