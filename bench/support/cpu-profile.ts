/**
 * Text summary of a V8 CPU profile (the `Profiler.Profile` of the Chrome DevTools protocol, what
 * `node --cpu-prof` writes): functions by self and total time, and cronfence's layers against the SDK,
 * middy and Node's internals.
 */
import { round } from './report.js';

/** A V8 CPU profile node (Profiler.Profile, Chrome DevTools protocol). */
export interface ProfileNode {
  readonly id: number;
  readonly callFrame: {
    readonly functionName: string;
    readonly url: string;
    readonly lineNumber: number;
    readonly columnNumber: number;
  };
  readonly hitCount?: number;
  readonly children?: readonly number[];
}
export interface Profile {
  readonly nodes: readonly ProfileNode[];
  readonly startTime: number;
  readonly endTime: number;
  readonly samples?: readonly number[];
}

/** Where a function lives: cronfence's own layer, a dependency, or Node. */
function areaOf(url: string): string {
  if (url === '') return '(native / VM)';
  const nm = url.lastIndexOf('node_modules/');
  if (nm >= 0) {
    const rest = url.slice(nm + 'node_modules/'.length).split('/');
    return rest[0]?.startsWith('@') ? `${rest[0]}/${rest[1]}` : (rest[0] ?? url);
  }
  if (url.startsWith('node:')) return 'node internals';
  const m = /\/(lib\/[a-z]+|bench|harness)\//.exec(url);
  return m ? `cronfence ${m[1]}` : url;
}

function label(n: ProfileNode): string {
  const { functionName, url, lineNumber, columnNumber } = n.callFrame;
  const file = url.replace(/^.*\/(node_modules|lib|bench|harness)\//, '$1/').replace(/^file:\/\//, '');
  // Line and column: tsx runs each TypeScript file compiled to one line.
  return `${functionName || '(anonymous)'} ${file}:${lineNumber + 1}:${columnNumber + 1}`;
}

/** The `rows` first functions by self and by total samples (% of the busy ones), and the areas by self samples. */
export function summarise(p: Profile, rows: number) {
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const self = new Map<number, number>();
  for (const s of p.samples ?? []) self.set(s, (self.get(s) ?? 0) + 1);
  const total = (p.samples ?? []).length;
  const selfBy = new Map<string, number>();
  const totalBy = new Map<string, number>();
  const areaBy = new Map<string, number>();
  let idle = 0;
  for (const [id, hits] of self) {
    const n = byId.get(id);
    if (!n) continue;
    const name = n.callFrame.functionName;
    if (name === '(idle)' || name === '(program)' || name === '(garbage collector)') {
      if (name === '(idle)') idle += hits;
      else areaBy.set(name, (areaBy.get(name) ?? 0) + hits);
      if (name === '(idle)') continue;
    }
    selfBy.set(label(n), (selfBy.get(label(n)) ?? 0) + hits);
    if (!name.startsWith('('))
      areaBy.set(areaOf(n.callFrame.url), (areaBy.get(areaOf(n.callFrame.url)) ?? 0) + hits);
    // Total: count the sample once for every distinct function on its stack.
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const a = byId.get(at);
      if (!a) break;
      const l = label(a);
      if (seen.has(l)) continue;
      seen.add(l);
      totalBy.set(l, (totalBy.get(l) ?? 0) + hits);
    }
  }
  const busy = total - idle;
  const top = (m: Map<string, number>) =>
    [...m.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, rows)
      .map(([fn, hits]) => ({ fn, pctOfBusy: round((hits / busy) * 100, 1) }));
  return {
    samples: total,
    busySamples: busy,
    sampledMs: round((p.endTime - p.startTime) / 1000, 0),
    byArea: top(areaBy),
    bySelf: top(selfBy),
    byTotal: top(totalBy),
  };
}
