/**
 * `--disable-schedule` / `--enable-schedule`: set the job's EventBridge Scheduler schedule's `State`.
 * UpdateSchedule replaces the whole schedule, so the schedule is read first (GetSchedule) and written
 * back unchanged but for `State` (AWS docs, Scheduler API "UpdateSchedule": omitted optional fields are
 * reset to their defaults). The operator needs `scheduler:GetSchedule`, `scheduler:UpdateSchedule`,
 * `iam:PassRole` on the schedule's target role, and `scheduler:ListSchedules` when no group is given
 * (docs/operations.md, docs/deploy.md). The schedule is named after the job (cdk/constructs/scheduled-job.ts).
 */
import {
  GetScheduleCommand,
  ListSchedulesCommand,
  SchedulerClient,
  UpdateScheduleCommand,
} from '@aws-sdk/client-scheduler';
import type { Connection } from './connection.js';
import { usage } from './input.js';

/** The schedule group holding the schedule named `job`: `group`, else the only match of ListSchedules. */
async function findGroup(client: SchedulerClient, job: string, group: string | undefined): Promise<string> {
  if (group !== undefined) return group;
  const groups = new Set<string>();
  let NextToken: string | undefined;
  do {
    const page = await client.send(new ListSchedulesCommand({ NamePrefix: job, NextToken }));
    for (const s of page.Schedules ?? []) if (s.Name === job && s.GroupName) groups.add(s.GroupName);
    NextToken = page.NextToken;
  } while (NextToken);
  const [only, ...more] = [...groups];
  if (only === undefined || more.length > 0)
    throw usage(
      'scheduleGroup',
      '(not given)',
      only === undefined
        ? `no Scheduler schedule named ${job} in this account and region`
        : `schedule ${job} exists in groups ${[only, ...more].join(', ')}: name one`,
    );
  return only;
}

/**
 * Set the schedule `job`'s state. @returns a line for the operator.
 * @throws InvalidArgumentError naming `scheduleGroup` when the schedule cannot be found; the SDK's
 *   error (e.g. AccessDeniedException) otherwise.
 */
export async function setScheduleState(
  clientConfig: Connection['clientConfig'],
  job: string,
  state: 'ENABLED' | 'DISABLED',
  group: string | undefined,
): Promise<string> {
  const client = new SchedulerClient({ ...clientConfig, maxAttempts: 3 });
  try {
    const GroupName = await findGroup(client, job, group);
    const s = await client.send(new GetScheduleCommand({ Name: job, GroupName }));
    if (s.State === state) return `schedule ${GroupName}/${job} already ${state}`;
    await client.send(
      new UpdateScheduleCommand({
        Name: job,
        GroupName,
        ScheduleExpression: s.ScheduleExpression,
        ScheduleExpressionTimezone: s.ScheduleExpressionTimezone,
        StartDate: s.StartDate,
        EndDate: s.EndDate,
        Description: s.Description,
        FlexibleTimeWindow: s.FlexibleTimeWindow,
        Target: s.Target,
        KmsKeyArn: s.KmsKeyArn,
        ActionAfterCompletion: s.ActionAfterCompletion,
        State: state,
      }),
    );
    return `schedule ${GroupName}/${job} set ${state}`;
  } finally {
    client.destroy();
  }
}
