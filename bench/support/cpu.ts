/**
 * CPU accounting for benchmark phases: this process's CPU time (process.cpuUsage) and, when we
 * started DynamoDB Local, its CPU time from /proc/<pid>/stat — so a throughput gap can be attributed
 * to the client (Node) or the server (DynamoDB Local) on a shared machine.
 */
import { readFileSync } from 'node:fs';

/** CPU time consumed, ms. */
export interface CpuSample {
  readonly nodeMs: number;
  readonly serverMs: number | undefined;
}

function serverCpuMs(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // fields[11], fields[12] = utime, stime in clock ticks (fields counted from field 3, state)
    const ticks = Number(fields[11]) + Number(fields[12]);
    return (ticks * 1000) / 100; // USER_HZ is 100 on Linux
  } catch {
    return undefined;
  }
}

/** Read the counters now. */
export function cpuNow(serverPid: number | undefined): CpuSample {
  const u = process.cpuUsage();
  return { nodeMs: (u.user + u.system) / 1000, serverMs: serverCpuMs(serverPid) };
}

/** CPU consumed between two samples. */
export function cpuSince(start: CpuSample, serverPid: number | undefined): CpuSample {
  const now = cpuNow(serverPid);
  return {
    nodeMs: now.nodeMs - start.nodeMs,
    serverMs:
      now.serverMs !== undefined && start.serverMs !== undefined ? now.serverMs - start.serverMs : undefined,
  };
}
