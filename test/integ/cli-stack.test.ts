/**
 * integ: the CLI finds a deployed stack's table from ONE setting, `"stack"` (or CRONFENCE_STACK), through
 * CloudFormation DescribeStacks. CloudFormation has no local emulator: a loopback server answers with
 * the XML of the API reference's DescribeStacks response (and its ValidationError for an unknown stack),
 * which the real SDK client parses; the table it names is on DynamoDB Local, reached in AWS mode
 * through AWS_ENDPOINT_URL_DYNAMODB.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CloudFormationClient } from '@aws-sdk/client-cloudformation';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect } from '../../operate/connection.js';
import { readStackSettings, stackJobFunction } from '../../operate/stack-outputs.js';
import { type LocalStack, localStack } from '../helpers/local-stack.js';
import { cli, json, runRecord, seedRuns } from './cli-harness.js';

let stack: LocalStack;
let server: Server;
let cfnEndpoint: string;
const requests: string[] = [];

/** Outputs by stack name, as `CronfenceJobs` in the README's app (`new CronfenceJobs(stack, 'Jobs')`) emits them. */
const STACKS: Record<string, Record<string, string>> = {};

const describeStacksXml = (
  name: string,
  outputs: Record<string, string>,
) => `<DescribeStacksResponse xmlns="http://cloudformation.amazonaws.com/doc/2010-05-15/">
  <DescribeStacksResult>
    <Stacks>
      <member>
        <StackName>${name}</StackName>
        <StackId>arn:aws:cloudformation:us-east-1:123456789012:stack/${name}/aaf549a0-a413-11df-adb3-5081b3858e83</StackId>
        <CreationTime>2026-11-30T22:28:28Z</CreationTime>
        <StackStatus>CREATE_COMPLETE</StackStatus>
        <DisableRollback>false</DisableRollback>
        <Outputs>${Object.entries(outputs)
          .map(
            ([k, v]) =>
              `
          <member>
            <OutputKey>${k}</OutputKey>
            <OutputValue>${v.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/"/g, '&quot;')}</OutputValue>
          </member>`,
          )
          .join('')}
        </Outputs>
      </member>
    </Stacks>
  </DescribeStacksResult>
  <ResponseMetadata>
    <RequestId>b9b4b068-3a41-11e5-94eb-example</RequestId>
  </ResponseMetadata>
</DescribeStacksResponse>`;

const notFoundXml = (
  name: string,
) => `<ErrorResponse xmlns="http://cloudformation.amazonaws.com/doc/2010-05-15/">
  <Error>
    <Type>Sender</Type>
    <Code>ValidationError</Code>
    <Message>Stack with id ${name} does not exist</Message>
  </Error>
  <RequestId>5ccc7dcd-744c-11e5-be70-example</RequestId>
</ErrorResponse>`;

function project(config: Record<string, unknown>): string {
  const dir = mkdtempSync(join(tmpdir(), 'cronfence-stack-'));
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'my-jobs', cronfence: config }));
  return dir;
}

/** AWS mode (no DYNAMODB_ENDPOINT), with the two services' endpoints on loopback. */
const awsEnv = (extra: Record<string, string> = {}) => ({
  PATH: process.env.PATH ?? '',
  HOME: process.env.HOME ?? '/tmp',
  AWS_ACCESS_KEY_ID: 'AKIDEXAMPLE',
  AWS_SECRET_ACCESS_KEY: 'example',
  AWS_EC2_METADATA_DISABLED: 'true',
  AWS_CONFIG_FILE: '/nonexistent/config',
  AWS_SHARED_CREDENTIALS_FILE: '/nonexistent/credentials',
  AWS_ENDPOINT_URL_CLOUDFORMATION: cfnEndpoint,
  AWS_ENDPOINT_URL_DYNAMODB: stack.endpoint,
  ...extra,
});

beforeAll(async () => {
  stack = await localStack();
  STACKS.MyJobs = {
    JobsJobFunctionNames5A3F0C21: '{"nightly":"MyJobs-nightly"}',
    JobsLibraryTableNameB8E2D4F7: stack.tableName,
  };
  STACKS.NotCronfence = { WebsiteUrl: 'https://example.com' };
  await seedRuns(stack, [
    runRecord({
      job: 'nightly',
      slot: '2026-03-02T03:00',
      runId: 'n1',
      outcome: 'succeeded',
      fence: 1,
      startedAtMs: Date.now() - 3_600_000,
    }),
  ]);
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      const form = new URLSearchParams(body);
      requests.push(`${form.get('Action')} ${form.get('StackName')}`);
      const name = String(form.get('StackName'));
      const outputs = STACKS[name];
      res.writeHead(outputs ? 200 : 400, { 'content-type': 'text/xml' });
      res.end(outputs ? describeStacksXml(name, outputs) : notFoundXml(name));
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  cfnEndpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}, 120_000);

afterAll(async () => {
  await new Promise((done) => server?.close(done));
});

describe('"stack" in the project config', () => {
  it('is all `cronfence runs nightly` needs: the table comes from the LibraryTableName output', async () => {
    const dir = project({ stack: 'MyJobs', region: 'us-east-1' });
    const before = requests.length;
    const r = await cli(['runs', 'nightly', '--json'], awsEnv(), dir);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(json<{ runId: string; slot: string; outcome: string }[]>(r)).toEqual([
      expect.objectContaining({ runId: 'n1', slot: '2026-03-02T03:00', outcome: 'succeeded' }),
    ]);
    expect(requests.slice(before)).toEqual(['DescribeStacks MyJobs']);
  }, 60_000);

  it('names the setting and the stack when no stack has that name', async () => {
    const dir = project({ stack: 'MyJob', region: 'us-east-1' });
    const r = await cli(['runs', 'nightly'], awsEnv(), dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      'cronfence: invalid package.json#cronfence.stack "MyJob": no CloudFormation stack of that name in us-east-1 (Stack with id MyJob does not exist): deploy it (npx cdk deploy), or fix the setting or the region\n',
    );
  }, 60_000);

  it('names CRONFENCE_STACK and lists the outputs when the stack has no LibraryTableName output', async () => {
    const r = await cli(
      ['runs', 'nightly'],
      awsEnv({ CRONFENCE_STACK: 'NotCronfence', AWS_REGION: 'us-east-1' }),
      project({}),
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      'cronfence: invalid CRONFENCE_STACK "NotCronfence": the stack has no LibraryTableName output (its outputs: WebsiteUrl): is CronfenceJobs in it? Pass --table or set CRONFENCE_TABLE otherwise\n',
    );
  }, 60_000);
});

describe('the connection from a stack', () => {
  it("gives backfill and trigger the stack's function names (JobFunctionNames, else <stack>-<job>)", async () => {
    const saved = { id: process.env.AWS_ACCESS_KEY_ID, secret: process.env.AWS_SECRET_ACCESS_KEY };
    process.env.AWS_ACCESS_KEY_ID = 'AKIDEXAMPLE';
    process.env.AWS_SECRET_ACCESS_KEY = 'example';
    try {
      const conn = await connect(
        { region: 'us-east-1' },
        { CRONFENCE_STACK: 'MyJobs', AWS_ENDPOINT_URL_CLOUDFORMATION: cfnEndpoint },
      );
      expect(conn.mode).toBe('aws');
      expect(conn.tableName).toBe(stack.tableName);
      expect(conn.functionName('nightly')).toBe('MyJobs-nightly');
      expect(conn.functionName('weekly')).toBe('MyJobs-weekly');
      conn.close();
      const plain = await connect({ region: 'us-east-1', table: 'other' }, {});
      expect(plain.functionName('nightly')).toBe('cronfence-nightly');
      plain.close();
    } finally {
      for (const [k, v] of [
        ['AWS_ACCESS_KEY_ID', saved.id],
        ['AWS_SECRET_ACCESS_KEY', saved.secret],
      ] as const)
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
    }
  });
});

describe('readStackSettings (the SDK client parsing the reference response)', () => {
  const client = () =>
    new CloudFormationClient({
      region: 'us-east-1',
      endpoint: cfnEndpoint,
      credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'example' },
    });

  it("reads the table and the jobs' function names; a job not listed gets the derived name", async () => {
    const settings = await readStackSettings('MyJobs', 'CRONFENCE_STACK', { region: 'us-east-1' }, client());
    expect(settings).toEqual({
      stackName: 'MyJobs',
      libraryTable: stack.tableName,
      functionNames: { nightly: 'MyJobs-nightly' },
    });
    expect(stackJobFunction(settings, 'nightly')).toBe('MyJobs-nightly');
    expect(stackJobFunction(settings, 'weekly')).toBe('MyJobs-weekly');
  });
});
