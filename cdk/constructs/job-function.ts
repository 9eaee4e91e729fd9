import { isAbsolute, join } from 'node:path';
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { SqsDestination } from 'aws-cdk-lib/aws-lambda-destinations';
import { NodejsFunction, OutputFormat, SourceMapMode } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import {
  DEFAULT_ASYNC_MAX_EVENT_AGE,
  DEFAULT_ASYNC_RETRY_ATTEMPTS,
  DEFAULT_LOG_RETENTION,
  DEFAULT_MEMORY_MB,
  EnvVar,
  ESBUILD_TARGET,
  LAMBDA_ARCHITECTURE,
  LAMBDA_RUNTIME,
  METRIC_NAMESPACE,
  METRIC_SERVICE,
} from './defaults.js';

/**
 * ESM bundles still meet CommonJS dependencies that call `require` on Node built-ins; give them
 * one (the standard esbuild ESM-on-Lambda banner).
 */
const ESM_REQUIRE_BANNER =
  "import{createRequire}from'node:module';const require=createRequire(import.meta.url);";

/** Properties of {@link JobFunction}. */
export interface JobFunctionProps {
  /** Handler file (exports `handler`), absolute or relative to `projectRoot`. */
  readonly entry: string;
  /** Repository root: holds package-lock.json and node_modules. */
  readonly projectRoot: string;
  /** Function timeout, in seconds. */
  readonly timeoutSeconds: number;
  /** Where failed async events go after Lambda's retries (the on-failure destination). */
  readonly deadLetterQueue: IQueue;
  /** Extra environment variables (table names). @default {} */
  readonly environment?: Readonly<Record<string, string>>;
  /** One-line description shown in the console. @default - none */
  readonly description?: string;
  /** Memory, in MB. @default 256 */
  readonly memorySize?: number;
  /** Log retention. @default RetentionDays.ONE_MONTH */
  readonly logRetention?: RetentionDays;
  /** Lambda async retries after a failed invocation (0–2). @default 2 */
  readonly retryAttempts?: number;
  /** Maximum age of an async event before it goes to the DLQ (60 s – 6 h). @default Duration.hours(6) */
  readonly maxEventAge?: Duration;
}

/**
 * A cronfence Lambda: NodejsFunction bundled locally by esbuild (no Docker) as minified ESM with
 * source maps, Node 24 on arm64, its own log group with retention, a role without managed
 * policies (it may write only its own log group), and an async-invoke config whose on-failure
 * destination is the given DLQ.
 */
export class JobFunction extends Construct {
  /** The function. */
  public readonly function: NodejsFunction;
  /** The function's execution role. */
  public readonly role: Role;
  /** The function's log group. */
  public readonly logGroup: LogGroup;

  constructor(scope: Construct, id: string, props: JobFunctionProps) {
    super(scope, id);
    this.logGroup = new LogGroup(this, 'Logs', {
      retention: props.logRetention ?? DEFAULT_LOG_RETENTION,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    this.role = new Role(this, 'Role', {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      ...(props.description ? { description: `Execution role: ${props.description}` } : {}),
    });
    this.logGroup.grantWrite(this.role);
    const entry = isAbsolute(props.entry) ? props.entry : join(props.projectRoot, props.entry);
    this.function = new NodejsFunction(this, 'Function', {
      entry,
      handler: 'handler',
      projectRoot: props.projectRoot,
      depsLockFilePath: join(props.projectRoot, 'package-lock.json'),
      runtime: LAMBDA_RUNTIME,
      architecture: LAMBDA_ARCHITECTURE,
      memorySize: props.memorySize ?? DEFAULT_MEMORY_MB,
      timeout: Duration.seconds(props.timeoutSeconds),
      role: this.role,
      logGroup: this.logGroup,
      ...(props.description ? { description: props.description } : {}),
      environment: {
        [EnvVar.nodeOptions]: '--enable-source-maps',
        [EnvVar.metricsNamespace]: METRIC_NAMESPACE,
        [EnvVar.serviceName]: METRIC_SERVICE,
        ...props.environment,
      },
      bundling: {
        format: OutputFormat.ESM,
        target: ESBUILD_TARGET,
        minify: true,
        sourceMap: true,
        sourceMapMode: SourceMapMode.DEFAULT,
        sourcesContent: false,
        mainFields: ['module', 'main'],
        banner: ESM_REQUIRE_BANNER,
        // Bundle the SDK: the deployed code is the code the tests ran, not the runtime's SDK copy.
        bundleAwsSDK: true,
        forceDockerBundling: false,
        tsconfig: join(props.projectRoot, 'tsconfig.json'),
      },
    });
    this.function.configureAsyncInvoke({
      retryAttempts: props.retryAttempts ?? DEFAULT_ASYNC_RETRY_ATTEMPTS,
      maxEventAge: props.maxEventAge ?? DEFAULT_ASYNC_MAX_EVENT_AGE,
      onFailure: new SqsDestination(props.deadLetterQueue),
    });
  }
}
