/**
 * A CDK app synthesized to disk with the real bundling (cdk.out: template + esbuild assets), then
 * "deployed" onto DynamoDB Local: tables created under the physical names the resolved template
 * gives them, and each function's bundle runnable in a child Node process with the environment the
 * template sets (plus region, function name and the endpoints of the recording endpoint).
 */

import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { App } from 'aws-cdk-lib';
import { CronfenceStack, type CronfenceStackProps } from '../../../cdk/stack.js';
import { ensureTables } from '../../../harness/local/tables.js';
import { stackFunctionName } from '../../../lib/core/function-name.js';
import { libraryTable, type TableSchema } from '../../../lib/store/schema.js';
import type { IamCheck, TableLookup } from './requests.js';
import { ACCOUNT, type CfnTemplate, REGION, ResolvedTemplate } from './template.js';

const run = promisify(execFile);
const CHILD = fileURLToPath(new URL('./lambda-child.mjs', import.meta.url));

/** A function of the template. */
export interface DeployedFunction {
  readonly logicalId: string;
  readonly name: string;
  readonly arn: string;
  readonly role: string;
  readonly environment: Record<string, string>;
  readonly assetDir: string;
  readonly timeoutSeconds: number;
}

/** Synthesize `props` into a fresh cdk.out (real esbuild bundling) and resolve its template. */
export function synthToDisk(id: string, props: CronfenceStackProps, prefix: string): Deployment {
  const outdir = mkdtempSync(join(tmpdir(), 'cronfence-iam-'));
  // The CDK CLI turns asset metadata on; it names each function's bundle directory in cdk.out.
  const app = new App({ outdir, context: { 'aws:cdk:enable-asset-metadata': true } });
  const stack = new CronfenceStack(app, id, { ...props, retainData: false });
  const assembly = app.synth();
  const artifact = assembly.getStackByName(stack.stackName);
  const template = JSON.parse(readFileSync(join(outdir, artifact.templateFile), 'utf8')) as CfnTemplate;
  return new Deployment(new ResolvedTemplate(template, prefix), outdir, stack.stackName);
}

/** The template on paper plus its functions and tables. */
export class Deployment {
  readonly functions: DeployedFunction[];
  /** Application/library schemas by the logical id of their table. */
  readonly tables = new Map<string, TableSchema>();

  constructor(
    readonly t: ResolvedTemplate,
    readonly outdir: string,
    /** The stack's name: a job's function is `<stack>-<job>` unless its entry names it. */
    readonly stackName?: string,
  ) {
    this.functions = t.ofType('AWS::Lambda::Function').map(([id, r]) => {
      const p = r.Properties ?? {};
      const env = t.resolve((p.Environment as { Variables?: unknown } | undefined)?.Variables ?? {});
      return {
        logicalId: id,
        name: t.ref(id),
        arn: t.attribute(id, 'Arn'),
        role: t.roleOf(p.Role).logicalId,
        environment: env as Record<string, string>,
        assetDir: join(outdir, String(r.Metadata?.['aws:asset:path'])),
        timeoutSeconds: Number(p.Timeout ?? 3),
      };
    });
  }

  /** Tell the deployment which schema each table env var stands for, and create those tables. */
  async createTables(doc: DynamoDBDocumentClient, schemas: readonly TableSchema[]): Promise<void> {
    for (const [id, r] of this.t.ofType('AWS::DynamoDB::Table')) {
      for (const fn of this.t.ofType('AWS::Lambda::Function')) {
        const vars =
          (fn[1].Properties?.Environment as { Variables?: Record<string, unknown> } | undefined)?.Variables ??
          {};
        for (const schema of [libraryTable, ...schemas]) {
          if (JSON.stringify(vars[schema.envVar]) === JSON.stringify({ Ref: id }))
            this.tables.set(id, schema);
        }
      }
      if (!this.tables.has(id))
        throw new Error(`table ${id} (${r.Type}) is used by no function's environment`);
    }
    await ensureTables(
      doc,
      [...this.tables].map(([id, schema]) => ({ schema, tableName: this.t.ref(id) })),
    );
  }

  /** Physical table name of a schema. */
  tableName(schema: TableSchema): string {
    const id = [...this.tables].find(([, s]) => s === schema)?.[0];
    if (!id) throw new Error(`no table for ${schema.defaultName}`);
    return this.t.ref(id);
  }

  /**
   * Tables by the name a request used: the physical name, or (in-process runs on their own tables,
   * e.g. drills) any name ending in the schema's default name.
   */
  get lookup(): TableLookup {
    const find = (name: string): [string, TableSchema] => {
      const hit = [...this.tables].find(([id, s]) => this.t.ref(id) === name || name.endsWith(s.defaultName));
      if (!hit) throw new Error(`table ${name} is not a table of the template`);
      return hit;
    };
    return {
      arnOf: (name) => this.t.attribute(find(name)[0], 'Arn'),
      partitionKeyOf: (name) => find(name)[1].partitionKey.name,
    };
  }

  /** The function of a job (`<stack>-<job>`, or `cronfence-<job>`) or the function whose ARN or name this is. */
  fn(nameOrArn: string): DeployedFunction {
    const derived = this.stackName === undefined ? undefined : stackFunctionName(this.stackName, nameOrArn);
    const f = this.functions.find(
      (x) =>
        x.name === nameOrArn ||
        x.arn === nameOrArn ||
        x.name === derived ||
        x.name === `cronfence-${nameOrArn}`,
    );
    if (!f) throw new Error(`no function ${nameOrArn}`);
    return f;
  }

  /** The sweeper's function (its environment names the jobs). */
  get sweeper(): DeployedFunction {
    const f = this.functions.find((x) => x.environment.CRONFENCE_JOBS !== undefined);
    if (!f) throw new Error('no sweeper');
    return f;
  }

  /**
   * Invoke a bundle with `events`, in its own Node process, as its role (the access key id), with
   * DynamoDB and Lambda pointed at `endpoint`; `onOutput` gets what the process printed (stdout, then
   * stderr). @returns each invocation's result
   */
  async invoke(
    f: DeployedFunction,
    events: readonly unknown[],
    endpoint: string,
    extraEnv: Record<string, string> = {},
    onOutput?: (text: string) => void,
  ): Promise<{ ok: boolean; value?: unknown; error?: string }[]> {
    const dir = mkdtempSync(join(tmpdir(), 'cronfence-iam-run-'));
    writeFileSync(join(dir, 'events.json'), JSON.stringify(events));
    const env = {
      PATH: process.env.PATH ?? '',
      ...f.environment,
      ...extraEnv,
      AWS_REGION: REGION,
      AWS_LAMBDA_FUNCTION_NAME: f.name,
      AWS_LAMBDA_FUNCTION_MEMORY_SIZE: '256',
      AWS_ACCESS_KEY_ID: f.role,
      AWS_SECRET_ACCESS_KEY: 'iam-test',
      AWS_ENDPOINT_URL_DYNAMODB: endpoint,
      AWS_ENDPOINT_URL_LAMBDA: endpoint,
      NODE_OPTIONS: f.environment.NODE_OPTIONS ?? '',
    };
    const printed = await run(
      process.execPath,
      [CHILD, f.assetDir, join(dir, 'events.json'), join(dir, 'results.json'), String(f.timeoutSeconds)],
      { env, timeout: 120_000, maxBuffer: 64 * 1024 * 1024 },
    );
    onOutput?.(`${printed.stdout}${printed.stderr}`);
    try {
      return JSON.parse(readFileSync(join(dir, 'results.json'), 'utf8'));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  /**
   * The schedule target's `Input` of the schedule named `name`, rendered as EventBridge Scheduler
   * renders it: each context attribute placeholder replaced by its value (EventBridge Scheduler User
   * Guide, "Adding context attributes"). @throws Error when the template has no such schedule.
   */
  renderedInput(
    name: string,
    attrs: { scheduledTimeMs: number; executionId: string; attemptNumber: number; group: string },
  ): unknown {
    const schedule = Object.values(this.t.template.Resources).find(
      (r) => r.Type === 'AWS::Scheduler::Schedule' && r.Properties?.Name === name,
    );
    const input = (schedule?.Properties?.Target as { Input?: unknown } | undefined)?.Input;
    if (typeof input !== 'string') throw new Error(`${name}: no schedule with a literal Input`);
    const values: Record<string, string> = {
      '<aws.scheduler.scheduled-time>': `${new Date(attrs.scheduledTimeMs).toISOString().slice(0, 19)}Z`,
      '<aws.scheduler.schedule-arn>': `arn:aws:scheduler:${REGION}:${ACCOUNT}:schedule/${attrs.group}/${name}`,
      '<aws.scheduler.execution-id>': attrs.executionId,
      '<aws.scheduler.attempt-number>': String(attrs.attemptNumber),
    };
    const rendered = input.replace(/<aws\.scheduler\.[a-z-]+>/g, (m) => {
      const v = values[m];
      if (v === undefined) throw new Error(`${name}: unknown context attribute ${m} in its Input`);
      return v;
    });
    return JSON.parse(rendered);
  }

  /** Remove the cdk.out directory. */
  dispose(): void {
    rmSync(this.outdir, { recursive: true, force: true });
  }

  /**
   * What the services themselves do with the roles: Scheduler assumes each schedule's role (with the
   * schedule GROUP ARN as `aws:SourceArn` and the account as `aws:SourceAccount`), invokes the target
   * and writes undeliverable events to the DLQ; Lambda writes failed async events to the function's
   * on-failure destination with the execution role.
   */
  serviceChecks(): IamCheck[] {
    const checks: IamCheck[] = [];
    for (const [id, r] of this.t.ofType('AWS::Scheduler::Schedule')) {
      const p = r.Properties ?? {};
      const target = p.Target as Record<string, unknown>;
      const role = this.t.roleOf(target.RoleArn);
      const group = this.t
        .ofType('AWS::Scheduler::ScheduleGroup')
        .find(([gid]) => this.t.ref(gid) === this.t.resolve(p.GroupName));
      if (!group) throw new Error(`${id}: no schedule group`);
      const what = `scheduler: ${String(p.Name)}`;
      checks.push(
        {
          role: role.logicalId,
          assumedBy: 'scheduler.amazonaws.com',
          action: 'sts:AssumeRole',
          resource: role.arn,
          context: { 'aws:SourceArn': this.t.attribute(group[0], 'Arn'), 'aws:SourceAccount': ACCOUNT },
          what: `${what} assumes its role`,
        },
        {
          role: role.logicalId,
          action: 'lambda:InvokeFunction',
          resource: String(this.t.resolve(target.Arn)),
          context: {},
          what: `${what} invokes its target`,
        },
        {
          role: role.logicalId,
          action: 'sqs:SendMessage',
          resource: String(this.t.resolve((target.DeadLetterConfig as { Arn: unknown }).Arn)),
          context: {},
          what: `${what} dead-letters an event`,
        },
      );
    }
    for (const [, r] of this.t.ofType('AWS::Lambda::EventInvokeConfig')) {
      const p = r.Properties ?? {};
      const f = this.fn(String(this.t.resolve(p.FunctionName)));
      const destination = (p.DestinationConfig as { OnFailure: { Destination: unknown } }).OnFailure
        .Destination;
      checks.push({
        role: f.role,
        action: 'sqs:SendMessage',
        resource: String(this.t.resolve(destination)),
        context: {},
        what: `lambda: ${f.name} on-failure destination`,
      });
    }
    return checks;
  }
}
