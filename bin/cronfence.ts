#!/usr/bin/env node
/**
 * The installed `cronfence` binary: the commands that work in a user's project (cli/main.ts), each a
 * thin shell over the operator API (`cronfence/operate`). This repository's development commands
 * (`start`, `drill`, `explore`) are in bin/dev.ts. Installed, this file runs as compiled JavaScript.
 */
import { cronfenceProgram, runProgram } from '../cli/main.js';

runProgram(cronfenceProgram());
