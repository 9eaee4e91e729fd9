/**
 * A deployed stack's cronfence settings, from its CloudFormation outputs: the library table's name
 * (`LibraryTableName`) and the jobs' function names (`JobFunctionNames`), as `CronfenceJobs` emits
 * them. One setting — the stack's name (`"stack"` in the project config, or `CRONFENCE_STACK`) — is
 * then all the CLI needs against AWS. DescribeStacks through `@aws-sdk/client-cloudformation`
 * (the SDK's own client: its query protocol, retries and credential chain, nothing of ours).
 */
import { CloudFormationClient, DescribeStacksCommand, type Output } from '@aws-sdk/client-cloudformation';
import { stackFunctionName } from '../lib/core/function-name.js';
import { usage } from './input.js';

/** The environment variable naming the stack (the config's `stack` fills it when unset). */
export const STACK_ENV = 'CRONFENCE_STACK';

/** What the CLI reads from a deployed stack. */
export interface StackSettings {
  /** The stack's name, as given. */
  readonly stackName: string;
  /** The library table's physical name. */
  readonly libraryTable: string;
  /** Function names by job, as the stack reports them. */
  readonly functionNames: Readonly<Record<string, string>>;
}

/** Client settings for the CloudFormation client (the DynamoDB connection's). */
export interface StackClientConfig {
  readonly region?: string;
  readonly profile?: string;
  readonly endpoint?: string;
}

/** Outputs whose key is `name`, or `name` after a construct's path and CDK's 8-hex-digit hash. */
function outputsNamed(outputs: readonly Output[], name: string): Output[] {
  const nested = new RegExp(`${name}[0-9A-F]{8}$`);
  return outputs.filter((o) => o.OutputKey === name || nested.test(o.OutputKey ?? ''));
}

/**
 * Read the stack's cronfence outputs (one DescribeStacks request).
 * @param setting names the setting in errors (`CRONFENCE_STACK`, `package.json#cronfence.stack`, ...).
 * @throws InvalidArgumentError (exit 2) naming the setting and the stack when the stack does not
 *   exist in the region, has no `LibraryTableName` output or several, or DescribeStacks is refused.
 */
export async function readStackSettings(
  stackName: string,
  setting: string,
  config: StackClientConfig,
  client: Pick<CloudFormationClient, 'send'> = new CloudFormationClient({
    ...(config.region && { region: config.region }),
    ...(config.profile && { profile: config.profile }),
    ...(config.endpoint && { endpoint: config.endpoint }),
  }),
): Promise<StackSettings> {
  const where = config.region ? ` in ${config.region}` : '';
  let outputs: Output[];
  try {
    const res = await client.send(new DescribeStacksCommand({ StackName: stackName }));
    outputs = res.Stacks?.[0]?.Outputs ?? [];
  } catch (err) {
    const e = err as Error;
    // CloudFormation answers an unknown stack with ValidationError "Stack with id X does not exist".
    if (e.name === 'ValidationError' && /does not exist/.test(e.message))
      throw usage(
        setting,
        stackName,
        `no CloudFormation stack of that name${where} (${e.message}): deploy it (npx cdk deploy), or fix the setting or the region`,
      );
    throw usage(setting, stackName, `DescribeStacks${where} failed: ${e.name}: ${e.message}`);
  } finally {
    if (client instanceof CloudFormationClient) client.destroy();
  }
  const tables = outputsNamed(outputs, 'LibraryTableName');
  const keys = outputs.map((o) => o.OutputKey).join(', ') || 'none';
  if (tables.length !== 1)
    throw usage(
      setting,
      stackName,
      tables.length === 0
        ? `the stack has no LibraryTableName output (its outputs: ${keys}): is CronfenceJobs in it? Pass \`table\` or set CRONFENCE_TABLE otherwise`
        : `the stack has ${tables.length} LibraryTableName outputs (${tables.map((o) => o.OutputKey).join(', ')}): pass \`table\` or set CRONFENCE_TABLE to choose`,
    );
  const [functions] = outputsNamed(outputs, 'JobFunctionNames');
  let functionNames: Record<string, string> = {};
  if (functions?.OutputValue) {
    try {
      functionNames = JSON.parse(functions.OutputValue) as Record<string, string>;
    } catch {
      throw usage(
        setting,
        stackName,
        `its ${functions.OutputKey} output is not JSON: ${functions.OutputValue}`,
      );
    }
  }
  return { stackName, libraryTable: String(tables[0]?.OutputValue), functionNames };
}

/**
 * The function a job runs as in the stack: the stack's `JobFunctionNames` output, else the name
 * `CronfenceJobs` derives from the stack's name (`<stack>-<job>`).
 * @returns `undefined` when neither gives one.
 */
export function stackJobFunction(stack: StackSettings, job: string): string | undefined {
  return stack.functionNames[job] ?? stackFunctionName(stack.stackName, job);
}
