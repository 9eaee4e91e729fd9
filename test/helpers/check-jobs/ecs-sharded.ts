/** A jobs module with an ECS job of 3 shards (`cronfence check` and synth refuse it: ECS jobs run unsharded). */
import { defineJob, lambdaShardDispatcher } from '../../../lib/index.js';

export const handlers = [
  defineJob({
    name: 'ecs-sharded',
    schedule: 'cron(0 3 * * ? *)',
    lease: { durationSeconds: 60 },
    runtime: 'ecs',
    timeoutSeconds: 3600,
    shards: 3,
    dispatch: lambdaShardDispatcher(),
    run: async () => undefined,
  }),
];
