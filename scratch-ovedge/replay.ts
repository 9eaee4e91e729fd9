import { runHistory } from '../harness/drills/explorer/run-history.js';
import { memoryBackend } from '../harness/drills/explorer/backends.js';
const spec = JSON.parse(process.argv[2] as string);
const o = await runHistory(spec, memoryBackend);
const seen = new Map<string, number>();
for (const r of [...o.records].filter((r) => r.job === 'ex-settle').sort((a, b) => Number(a.startedAtMs) - Number(b.startedAtMs))) {
  const k = `${r.scheduledTime} ${r.outcome}/${r.reason ?? ''} ${r.trigger}`;
  seen.set(k, (seen.get(k) ?? 0) + 1);
}
for (const [k, n] of seen) console.log(n, k);
