/**
 * cdk: what a team's own stack deploys and tells the CLI — the outputs `"stack"` reads, function names
 * that do not collide across stacks (and an override), a job's own environment, the example app's
 * payments URL. Synthesized offline, without bundling.
 */
import { App, Stack } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { CronfenceJobs, type JobEntry } from '../../cdk/constructs/cronfence-jobs.js';
import { exampleStack } from '../../cdk/example-app.js';
import { stackFunctionName } from '../../lib/core/function-name.js';
import { defineJob } from '../../lib/runtime/define-job.js';
import { FIXTURE_HANDLER, FIXTURE_SWEEPER, jobDefinition } from './fixtures/jobs.js';
import { NOW } from './support.js';

const nightly = (extra: Partial<JobEntry> = {}): JobEntry => ({
  definition: jobDefinition({ name: 'nightly' }),
  entry: FIXTURE_HANDLER,
  ...extra,
});

/** The README's app: `new Stack(app, 'MyJobs')` with `new CronfenceJobs(stack, 'Jobs', ...)`. */
function readmeApp(stackName: string, jobs: JobEntry[], context: Record<string, unknown> = {}) {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [], ...context } });
  const stack = new Stack(app, stackName);
  const construct = new CronfenceJobs(stack, 'Jobs', { jobs, sweeperEntry: FIXTURE_SWEEPER, now: NOW });
  return { stack, construct, template: Template.fromStack(stack) };
}

function fnEnvironment(template: Template, functionName: string): Record<string, unknown> {
  const fns = template.findResources('AWS::Lambda::Function', {
    Properties: { FunctionName: functionName },
  });
  const [fn] = Object.values(fns) as {
    Properties: { Environment: { Variables: Record<string, unknown> } };
  }[];
  if (!fn) throw new Error(`no function ${functionName}`);
  return fn.Properties.Environment.Variables;
}

describe('the outputs the CLI reads with its "stack" setting', () => {
  it("emits the library table's name and the jobs' function names in the README's app", () => {
    const { stack, construct, template } = readmeApp('MyJobs', [nightly()]);
    const outputs = template.findOutputs('*');
    const keys = Object.keys(outputs).sort();
    expect(keys).toHaveLength(2);
    expect(keys[0]).toMatch(/^JobsJobFunctionNames[0-9A-F]{8}$/);
    expect(keys[1]).toMatch(/^JobsLibraryTableName[0-9A-F]{8}$/);
    expect(outputs[keys[1] as string]).toEqual({
      Description:
        'cronfence library table (leases, run records, effects); the CLI reads it with its "stack" setting',
      Value: { Ref: stack.getLogicalId(construct.libraryTable.table.node.defaultChild as never) },
    });
    expect(outputs[keys[0] as string]?.Value).toBe('{"nightly":"MyJobs-nightly"}');
  });

  it('keeps the plain keys LibraryTableName and JobFunctionNames in the example stack', () => {
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
    const template = Template.fromStack(exampleStack(app, { now: NOW }));
    template.hasOutput('LibraryTableName', { Value: { Ref: 'LibrarySchemaTable733571BB' } });
    template.hasOutput('JobFunctionNames', {
      Value:
        '{"daily-report":"Cronfence-daily-report","merchant-settlement":"Cronfence-merchant-settlement"}',
    });
  });
});

describe('function names', () => {
  it('differ between two stacks with the same job (staging and prod in one account)', () => {
    const staging = readmeApp('Staging', [nightly()]).template;
    const prod = readmeApp('Prod', [nightly()]).template;
    staging.hasResourceProperties('AWS::Lambda::Function', { FunctionName: 'Staging-nightly' });
    prod.hasResourceProperties('AWS::Lambda::Function', { FunctionName: 'Prod-nightly' });
  });

  it("take the job entry's functionName, and the output says so", () => {
    const { template } = readmeApp('MyJobs', [nightly({ functionName: 'team-a-nightly' })]);
    template.hasResourceProperties('AWS::Lambda::Function', { FunctionName: 'team-a-nightly' });
    const [output] = Object.values(template.findOutputs('*', { Value: Match.stringLikeRegexp('nightly') }));
    expect(output?.Value).toBe('{"nightly":"team-a-nightly"}');
  });

  it('shorten a long stack name with a tag of the whole name, at most 64 characters', () => {
    const stackName = `Team-${'p'.repeat(60)}`;
    const name = stackFunctionName(stackName, 'nightly');
    expect(name).toBe(`Team-${'p'.repeat(42)}-6e68aea3-nightly`);
    expect(name).toHaveLength(64);
    readmeApp(stackName, [nightly()]).template.hasResourceProperties('AWS::Lambda::Function', {
      FunctionName: name,
    });
  });
});

describe("a job entry's environment", () => {
  it('reaches the function beside the variables cronfence sets', () => {
    const { template } = readmeApp('MyJobs', [nightly({ environment: { REPORT_BUCKET: 'my-bucket' } })]);
    const env = fnEnvironment(template, 'MyJobs-nightly');
    expect(env.REPORT_BUCKET).toBe('my-bucket');
    expect(env.CRONFENCE_TABLE).toEqual({ Ref: 'JobsLibrarySchemaTable91F238C6' });
  });

  it.each([
    ['CRONFENCE_TABLE', 'cronfence sets it'],
    ['NODE_OPTIONS', 'cronfence sets it'],
    ['AWS_REGION', 'Lambda reserves it'],
    ['AWS_LAMBDA_FUNCTION_NAME', 'Lambda reserves it'],
  ])('refuses %s at synth, naming the job and the rule', (variable, rule) => {
    expect(() => readmeApp('MyJobs', [nightly({ environment: { [variable]: 'x' } })])).toThrow(
      `cronfence: job "nightly": environment.${variable} is refused: ${rule}; choose another name`,
    );
  });
});

describe("the example app's settlement job", () => {
  const settlementEnv = (context: Record<string, unknown>) => {
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [], ...context } });
    const stack = exampleStack(app, { now: NOW });
    return { stack, env: fnEnvironment(Template.fromStack(stack), 'Cronfence-merchant-settlement') };
  };

  it('gets its payments URL from the paymentsUrl context value', () => {
    const { env } = settlementEnv({ paymentsUrl: 'https://payments.example.com' });
    expect(env.PAYMENTS_URL).toBe('https://payments.example.com');
    expect(env.PAYMENTS_CAPABILITIES).toBe('idempotency-keys,lookup');
  });

  it('warns at synth that it pays nobody without one', () => {
    const { stack, env } = settlementEnv({});
    expect(env.PAYMENTS_URL).toBeUndefined();
    const warnings = Annotations.fromStack(stack).findWarning(
      '/Cronfence/Default/merchant-settlement',
      Match.stringLikeRegexp('PAYMENTS_URL'),
    );
    expect(warnings.map((w) => w.entry.data)).toEqual([
      `job "merchant-settlement" deploys without PAYMENTS_URL: it settles rows only and pays nobody; pass -c paymentsUrl=<the provider's base URL> [ack: cronfence:no-payments-url]`,
    ]);
  });

  it('refuses a paymentsUrl that is not a URL, naming the context value', () => {
    expect(() => settlementEnv({ paymentsUrl: 'payments.example.com' })).toThrow(
      'cronfence: context paymentsUrl = "payments.example.com": must be an http(s) URL, e.g. -c paymentsUrl=https://payments.example.com',
    );
  });
});

describe("a job's uses, declared in defineJob", () => {
  const notes = {
    defaultName: 'team-notes',
    envVar: 'NOTES_TABLE',
    partitionKey: { name: 'day', type: 'S' as const },
  };
  const handler = defineJob({
    name: 'nightly',
    schedule: 'cron(0 3 * * ? *)',
    lease: { durationSeconds: 60 },
    timeoutSeconds: 120,
    uses: { tables: [{ table: notes, writes: ['fencedPut'] }] },
    run: async () => undefined,
  });

  it('is read from the definition: the table is created, named to the function and granted its one write', () => {
    const { template } = readmeApp('MyJobs', [{ definition: handler.job, entry: FIXTURE_HANDLER }]);
    const tables = template.findResources('AWS::DynamoDB::Table', {
      Properties: { KeySchema: [{ AttributeName: 'day', KeyType: 'HASH' }] },
    });
    const [tableId] = Object.keys(tables);
    expect(tableId).toMatch(/^JobsTableteamnotes/);
    expect(fnEnvironment(template, 'MyJobs-nightly').NOTES_TABLE).toEqual({ Ref: tableId });
    template.hasResourceProperties('AWS::IAM::Policy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          { Action: 'dynamodb:UpdateItem', Effect: 'Allow', Resource: { 'Fn::GetAtt': [tableId, 'Arn'] } },
        ]),
      },
    });
  });
});
