/**
 * This repository's development entry (`npm start`, `npm run drill`, `npm run explore`; never
 * shipped): every command of the installed `cronfence` binary, plus `start` (the example app on
 * DynamoDB Local under the Scheduler emulator), `drill` (failure drills) and `explore` (the seeded
 * history explorer), which need this repository's example jobs and harness. Run through tsx.
 */

import { cronfenceProgram, runProgram } from '../cli/main.js';
import { registerDrill } from '../harness/commands/drill.js';
import { registerExplore } from '../harness/commands/explore.js';
import { registerStart } from '../harness/commands/start.js';
import { DEFAULT_REGISTRY, loadOrExplain } from '../operate/registry.js';

// The example app loads only when a command needs it, so a broken job file never breaks `--help`,
// `drill --list` or `explore`.
const app = () =>
  loadOrExplain(DEFAULT_REGISTRY, async () => (await import('../functions/example-app.js')).exampleApp);

runProgram(
  cronfenceProgram((program) => {
    registerStart(program, app, async () => (await import('../functions/ecs-jobs.js')).ecsLocalApp);
    registerDrill(program, app);
    registerExplore(program);
  }),
);
