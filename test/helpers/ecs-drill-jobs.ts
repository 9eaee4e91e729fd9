/**
 * The jobs module the ECS task drills start their child processes with (`CRONFENCE_JOBS_MODULE`): the
 * example export job, short enough for a test, shaped by environment variables read at import (each
 * child process is one task): `DRILL_PARTS` (@default 4), `DRILL_PART_MS` (@default 300),
 * `DRILL_LEASE_SECONDS` (@default 4: renewed every 1.33 s), `DRILL_HOLD_FILE` (the last part waits,
 * renewing its lease, until this file exists: a test holds a task mid-body however slow the machine).
 */
import { existsSync } from 'node:fs';
import { exportJob } from '../../functions/nightly-export.js';

const n = (name: string, d: number) => Number(process.env[name] ?? d);
const hold = process.env.DRILL_HOLD_FILE;
const parts = n('DRILL_PARTS', 4);

export const handlers = [
  exportJob({
    name: 'ecs-drill',
    parts,
    partMs: n('DRILL_PART_MS', 300),
    leaseSeconds: n('DRILL_LEASE_SECONDS', 4),
    timeoutSeconds: n('DRILL_TIMEOUT_SECONDS', 600),
    ...(hold !== undefined && {
      beforePart: async (i, ctx) => {
        while (i === parts - 1 && !existsSync(hold)) {
          ctx.throwIfAborted();
          await new Promise((r) => setTimeout(r, 50));
        }
      },
    }),
  }),
];
