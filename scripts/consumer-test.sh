#!/usr/bin/env bash
# The consumer test (run by .ci/run): cronfence as a team installs it, following the README literally.
# Packs this repository, then in a new, empty directory outside it runs the README's "Use cronfence in
# your project" code blocks, read from README.md by scripts/readme-blocks.ts: a `file PATH` block is
# written to PATH exactly, a `run` block runs in bash, a `background` block (`cronfence local --hold`)
# keeps running for the blocks after it; the deploy alone is not run. The README's `npm install` lines
# run through a stand-in `npm` that installs cronfence from the packed tarball and every other package
# at the version this repository pins, from the local npm cache first (the registry only for what the
# cache lacks). No block is rewritten and no glue is added between them: the CLI finds the held local
# table by itself. Then it checks what a user would look at: the synthesized template (schedule, job
# function, sweeper, table), the CLI's output (the triggered run `succeeded`, no AWS SDK warning on
# this Node), the read-only commands printing the same with no jobs module and with a broken one, a
# plain `import('cronfence')`, and that stopping the held table removes `.cronfence/local.json`.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d "${TMPDIR:-/tmp}/cronfence-consumer-XXXXXX")"
app="$work/my-jobs"
held_pid=""
stop_held() {
  # The held DynamoDB Local: its CLI process's pid is in .cronfence/local.json (npx runs it as a child).
  if [ -n "$held_pid" ] && kill -0 "$held_pid" 2>/dev/null; then
    kill "$held_pid" 2>/dev/null || true
    for _ in $(seq 1 60); do kill -0 "$held_pid" 2>/dev/null || break; sleep 0.5; done
  fi
}
cleanup() { stop_held; rm -rf "$work"; }
trap cleanup EXIT
started=$(date +%s)
fail() { echo "consumer: FAIL: $*" >&2; exit 1; }

echo "consumer: node $(node --version), npm pack"
(cd "$repo" && npm pack --silent --pack-destination "$work" >/dev/null)
tarball="$(ls "$work"/cronfence-*.tgz)"

# The README's blocks, in order.
"$repo/node_modules/.bin/tsx" "$repo/scripts/readme-blocks.ts" "$repo/README.md" "$work/blocks"

# `npm` for the README's install lines: cronfence is the tarball, the rest this repository's versions.
mkdir -p "$work/shim"
cat > "$work/shim/npm" <<SH
#!/usr/bin/env bash
set -euo pipefail
real="$(command -v npm)"
if [ "\${1:-}" != install ]; then exec "\$real" "\$@"; fi
shift
args=()
for a in "\$@"; do
  case "\$a" in
    -*) args+=("\$a") ;;
    cronfence) args+=("$tarball") ;;
    *) v="\$(node -p "try { require('$repo/node_modules/\$a/package.json').version } catch { '' }")"
       args+=("\$a\${v:+@\$v}") ;;
  esac
done
exec "\$real" install --prefer-offline --no-audit --no-fund --loglevel=error "\${args[@]}"
SH
chmod +x "$work/shim/npm"

mkdir -p "$app"
cd "$app"
# No AWS account: synth and the CLI must work without credentials.
unset AWS_PROFILE AWS_ACCESS_KEY_ID AWS_SECRET_ACCESS_KEY AWS_SESSION_TOKEN
export AWS_EC2_METADATA_DISABLED=true
log="$work/cli.log"
: > "$log"
while IFS=$'\t' read -r kind path text line; do
  case "$kind" in
    file)
      echo "consumer: README.md:$line writes $path"
      mkdir -p "$(dirname "$path")"
      cp "$text" "$path"
      ;;
    run)
      echo "consumer: README.md:$line runs: $(paste -sd ';' "$text")"
      PATH="$work/shim:$PATH" bash -euo pipefail "$text" < /dev/null 2>&1 | tee -a "$log" | sed 's/^/  | /' \
        || fail "README.md:$line: the block exited ${PIPESTATUS[0]}"
      ;;
    background)
      echo "consumer: README.md:$line starts in the background: $(paste -sd ';' "$text")"
      bash "$text" < /dev/null > "$work/background.log" 2>&1 &
      for _ in $(seq 1 240); do
        [ -f .cronfence/local.json ] && break
        kill -0 $! 2>/dev/null || { cat "$work/background.log"; fail "README.md:$line: it exited"; }
        sleep 0.5
      done
      [ -f .cronfence/local.json ] || { cat "$work/background.log"; fail "README.md:$line: no .cronfence/local.json after 120 s"; }
      held_pid="$(node -p "require('./.cronfence/local.json').pid")"
      sed 's/^/  | /' "$work/background.log"
      ;;
    not-run) echo "consumer: README.md:$line not run: $(paste -sd ';' "$text")" ;;
  esac
done < "$work/blocks/blocks.tsv"

echo "consumer: checking what the steps produced"
node - <<'JS'
const t = JSON.parse(require('node:fs').readFileSync('./cdk.out/MyJobs.template.json', 'utf8'));
const of = (type) => Object.values(t.Resources).filter((r) => r.Type === type);
const fail = (m) => { console.error(`consumer: FAIL: template: ${m}`); process.exit(1); };
const schedule = of('AWS::Scheduler::Schedule').find((s) => s.Properties.ScheduleExpression === 'cron(0 3 * * ? *)');
if (!schedule || schedule.Properties.ScheduleExpressionTimezone !== 'Europe/Berlin') fail('no nightly schedule cron(0 3 * * ? *) Europe/Berlin');
const fns = of('AWS::Lambda::Function').map((f) => f.Properties.Description ?? '');
if (!fns.some((d) => d.startsWith('cronfence job nightly'))) fail(`no nightly function (${fns})`);
if (!fns.some((d) => d.startsWith('cronfence sweeper'))) fail(`no sweeper function (${fns})`);
if (of('AWS::DynamoDB::Table').length < 1) fail('no library table');
console.log(`consumer: template ok (${fns.length} functions, the nightly schedule, ${of('AWS::DynamoDB::Table').length} table(s))`);
JS
grep -Eq '^[0-9T:-]+ +manual +succeeded +- +1 +[0-9a-z-]+ +[^ ]+ +-$' "$log" || fail "trigger printed no succeeded manual run"
grep -Eq '^[0-9T:-]+ +manual +succeeded .* by [^:]+: cronfence trigger$' "$log" || fail "runs nightly printed no triggered run"
if grep -Eq 'NodeVersionSupportWarning|MaxListenersExceededWarning' "$log" "$work/background.log"; then fail "a Node warning was printed (the AWS SDK's Node-version notice or MaxListenersExceeded)"; fi
echo "consumer: CLI ok (trigger succeeded; no SDK Node-version or MaxListeners warning on node $(node --version))"

# An ECS job (`runtime: 'ecs'`) in the new project: synthesized with its own app (no Docker: the image
# is staged in cdk.out, built at deploy time), its template checked, and its task entry run once as the
# container runs it (`node .../ecs-task.js` with the variables the task definition and Scheduler's
# container overrides set) against the held DynamoDB Local.
mkdir -p src bin
cat > src/export.ts <<'TS'
import { defineJob } from 'cronfence';

export const handler = defineJob({
  name: 'export',
  runtime: 'ecs',
  schedule: 'cron(0 4 * * ? *)',
  timeZone: 'Europe/Berlin',
  lease: { durationSeconds: 60 },
  timeoutSeconds: 3600,
  run: async (ctx) => {
    console.log(`export for ${ctx.businessDate}, fence ${ctx.fence}`);
  },
});
TS
cat > src/ecs-jobs.ts <<'TS'
import { handler as exportJob } from './export.js';

export const handlers = [exportJob];
TS
cat > bin/ecs-app.ts <<'TS'
import { App, Stack } from 'aws-cdk-lib';
import { CronfenceJobs } from 'cronfence/cdk';
import { handler as exportJob } from '../src/export.js';

const app = new App();
const stack = new Stack(app, 'MyEcsJobs');
new CronfenceJobs(stack, 'Jobs', {
  jobs: [{ definition: exportJob.job, entry: 'src/export.ts', ecs: { cpu: 512, memoryLimitMiB: 1024 } }],
});
app.synth();
TS
npx tsc || fail "tsc of the ECS job and app"
npx cdk synth -q --app "node dist/bin/ecs-app.js" -o cdk.out.ecs 2>&1 | sed 's/^/  | /' || fail "cdk synth of the ECS app"
node - <<'JS'
const t = JSON.parse(require('node:fs').readFileSync('./cdk.out.ecs/MyEcsJobs.template.json', 'utf8'));
const of = (type) => Object.values(t.Resources).filter((r) => r.Type === type);
const fail = (m) => { console.error(`consumer: FAIL: ECS template: ${m}`); process.exit(1); };
const [task] = of('AWS::ECS::TaskDefinition');
if (!task || task.Properties.Family !== 'MyEcsJobs-export' || task.Properties.Cpu !== '512') fail('no task definition MyEcsJobs-export with 512 CPU units');
const container = task.Properties.ContainerDefinitions[0];
if (container.Name !== 'job' || !container.Environment.some((e) => e.Name === 'CRONFENCE_JOB' && e.Value === 'export')) fail('no container "job" for export');
const schedule = of('AWS::Scheduler::Schedule').find((s) => s.Properties.Name === 'export');
if (!schedule?.Properties.Target.EcsParameters) fail('no ECS RunTask schedule for export');
const overrides = JSON.parse(schedule.Properties.Target.Input);
if (overrides.containerOverrides[0].environment[0].name !== 'CRONFENCE_OCCURRENCE') fail(`Input ${schedule.Properties.Target.Input}`);
if (of('AWS::Lambda::Function').some((f) => (f.Properties.Description ?? '').startsWith('cronfence job export'))) fail('a Lambda function for the ECS job');
if (!require('node:fs').existsSync('./cdk.out.ecs/.cronfence-ecs/MyEcsJobs-export/Dockerfile')) fail('no staged image (Dockerfile)');
console.log('consumer: ECS template ok (task definition, RunTask schedule with the occurrence override, staged image)');
JS
ecs_endpoint="$(node -p "require('./.cronfence/local.json').endpoint")"
CRONFENCE_TABLE=cronfence DYNAMODB_ENDPOINT="$ecs_endpoint" AWS_REGION=us-east-1 \
  CRONFENCE_JOBS_MODULE="$app/dist/src/ecs-jobs.js" CRONFENCE_JOB=export \
  CRONFENCE_OCCURRENCE='{"scheduledTime":"2026-03-02T03:00:00Z","attempt":1,"executionId":"consumer-ecs-1","trigger":"schedule"}' \
  node node_modules/cronfence/dist/lib/entries/ecs-task.js > "$work/ecs-task.log" 2>&1 \
  || { cat "$work/ecs-task.log"; fail "the ECS task entry exited non-zero"; }
"$app/node_modules/.bin/cronfence" runs export --endpoint "$ecs_endpoint" --table cronfence --region us-east-1 > "$work/ecs-runs.log" \
  || fail "cronfence runs export"
grep -Eq '2026-03-02T04:00 +schedule +succeeded ' "$work/ecs-runs.log" || { cat "$work/ecs-runs.log"; fail "the ECS task recorded no succeeded run of 2026-03-02T04:00"; }
echo "consumer: ECS task entry ok (ran once as a child process: succeeded, exit 0)"

# The read-only commands need no job code: the same output with no jobs module configured and with
# one that cannot be loaded (seconds left/ago stripped: they follow the clock).
endpoint="$(node -p "require('./.cronfence/local.json').endpoint")"
bare="$work/no-jobs" broken="$work/broken-jobs"
mkdir -p "$bare" "$broken"
echo 'throw new Error("job code must not be imported");' > "$broken/jobs.mjs"
echo '{ "jobs": "./jobs.mjs", "table": "cronfence", "region": "us-east-1" }' > "$broken/cronfence.config.json"
read_only() { (cd "$1" && "$app/node_modules/.bin/cronfence" "${@:2}" --endpoint "$endpoint" --table cronfence --region us-east-1) | sed -E 's/[0-9]+s (left|ago)/Ns \1/g'; }
for args in "runs nightly" "lease nightly --json" "effects --job nightly"; do
  # shellcheck disable=SC2086
  expected="$(read_only "$app" $args)"
  for dir in "$bare" "$broken"; do
    # shellcheck disable=SC2086
    got="$(read_only "$dir" $args)"
    [ "$got" = "$expected" ] || fail "cronfence $args in $dir printed:\n$got\nnot:\n$expected"
  done
  echo "consumer: cronfence $args: the same without job code"
done

# The operator API (cronfence/operate) from the project's own script: pause, trigger (skipped /
# paused), resume, trigger an earlier slot (succeeded) and read the runs, on the held local table
# (found through .cronfence/local.json, as the CLI finds it); then the installed binary lists only
# the commands that work in a project.
cat > "$app/ops.mjs" <<'JS'
import { openOperator } from 'cronfence/operate';
import { handlers } from './dist/src/jobs.js';

const ops = openOperator({ jobs: handlers });
try {
  const job = ops.job('nightly');
  const [first] = await job.runs({ outcomes: ['succeeded'] });
  if (!first) throw new Error('no succeeded run of nightly to start from');
  await job.pause({ note: 'consumer test', by: 'consumer' });
  const paused = await job.trigger({ local: true, requestedBy: 'consumer', reason: 'while paused', slot: first.slot });
  const resumed = await job.resume({ by: 'consumer' });
  const day = new Date(Date.parse(first.slot.slice(0, 10)) - 86_400_000).toISOString().slice(0, 10);
  const ran = await job.trigger({ local: true, requestedBy: 'consumer', reason: 'after resume', slot: `${day}T03:00` });
  const runs = await job.runs();
  const got = {
    paused: `${paused.records[0]?.outcome}/${paused.records[0]?.reason}`,
    resumed: resumed.resumed,
    ran: `${ran.slot} ${ran.records[0]?.outcome}`,
    manual: runs.filter((r) => r.requestedBy === 'consumer').map((r) => `${r.slot} ${r.outcome}`).sort(),
  };
  console.log(JSON.stringify(got));
  const want = JSON.stringify({
    paused: 'skipped/paused',
    resumed: true,
    ran: `${day}T03:00 succeeded`,
    manual: [`${day}T03:00 succeeded`, `${first.slot} skipped`],
  });
  if (JSON.stringify(got) !== want) throw new Error(`expected ${want}`);
} finally {
  ops.close();
}
JS
(cd "$app" && node ops.mjs) 2>&1 | sed 's/^/  | /' || fail "ops.mjs: the operator API did not pause, trigger and list runs as expected"
help_text="$("$app/node_modules/.bin/cronfence" --help)"
for cmd in runs lease effects jobs pause resume trigger backfill check report local; do
  grep -Eq "^  $cmd( |$)" <<<"$help_text" || fail "cronfence --help does not list $cmd"
done
if grep -Eq '^  (start|drill|explore)( |$)' <<<"$help_text"; then fail "cronfence --help lists a development command (start, drill, explore)"; fi
echo "consumer: operator API ok (pause, trigger, resume, runs from the project's script); the binary lists only project commands"

node -e "import('cronfence').then((m) => { if (typeof m.defineJob !== 'function') process.exit(1); console.log('consumer: import ok'); })"

stop_held
[ ! -e .cronfence/local.json ] || fail "stopping cronfence local --hold left .cronfence/local.json"
echo "consumer: cronfence local --hold stopped and removed .cronfence/local.json"
echo "consumer: ok ($(( $(date +%s) - started )) s)"
