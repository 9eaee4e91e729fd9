// IAM test: run one cdk.out Lambda bundle in its own Node process, as Lambda would: the environment
// the template gives the function (set by the parent), `handler(event, context)` for each event of
// the events file, in order. Results go to the output file (stdout carries the function's logs).
// Usage: node lambda-child.mjs <bundle dir> <events.json> <results.json> <timeout seconds>
import { randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const [dir, eventsFile, resultsFile, timeoutSeconds] = process.argv.slice(2);
const { handler } = await import(pathToFileURL(join(dir, 'index.mjs')).href);
const events = JSON.parse(readFileSync(eventsFile, 'utf8'));
const name = process.env.AWS_LAMBDA_FUNCTION_NAME;
const results = [];
for (const event of events) {
  const deadline = Date.now() + Number(timeoutSeconds) * 1000;
  const context = {
    awsRequestId: randomUUID(),
    functionName: name,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:${process.env.AWS_REGION}:111122223333:function:${name}`,
    memoryLimitInMB: process.env.AWS_LAMBDA_FUNCTION_MEMORY_SIZE,
    logGroupName: `/aws/lambda/${name}`,
    logStreamName: 'iam-test',
    callbackWaitsForEmptyEventLoop: false,
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
  };
  try {
    const value = await handler(event, context);
    results.push({ ok: true, value: value ?? null });
  } catch (error) {
    results.push({ ok: false, error: `${error?.name}: ${error?.message}` });
  }
}
writeFileSync(resultsFile, JSON.stringify(results));
process.exit(0);
