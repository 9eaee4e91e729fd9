/**
 * unit: the package ships what its entry points reach and no more of the harness. Walks the relative
 * imports (type imports too: the .d.ts files name them) from every entry of package.json's `exports`
 * and `bin`, mapped from dist/ to the sources, and checks them against `files`: every reachable file
 * is shipped, and of harness/ only what `cronfence/testing` (DynamoDB Local, the Scheduler emulator,
 * the fault injector and clocks) and `cronfence report` (the timeline renderer) use.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../../..');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  exports: Record<string, string | { default: string }>;
  bin: Record<string, string>;
  files: string[];
};
const IMPORT =
  /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s*['"](\.{1,2}\/[^'"]+)['"]|import\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g;

/** The source of a dist/ JavaScript path (`./dist/operate/index.js` -> `operate/index.ts`). */
const sourceOf = (path: string) => path.replace(/^\.?\/?dist\//, '').replace(/\.js$/, '.ts');

function reachable(entries: readonly string[]): Set<string> {
  const seen = new Set<string>();
  const todo = [...entries];
  while (todo.length > 0) {
    const f = todo.pop() as string;
    if (seen.has(f)) continue;
    seen.add(f);
    for (const m of readFileSync(join(ROOT, f), 'utf8').matchAll(IMPORT)) {
      const spec = m[1] ?? m[2];
      if (spec === undefined || spec.endsWith('.json')) continue;
      const target = relative(ROOT, resolve(ROOT, dirname(f), spec)).replace(/\.js$/, '.ts');
      if (existsSync(join(ROOT, target))) todo.push(target);
    }
  }
  return seen;
}

/** Whether `files` ships dist/<source as .js>: a directory prefix or `name.*`, minus `!` patterns. */
function shipped(source: string): boolean {
  const js = `dist/${source.replace(/\.ts$/, '.js')}`;
  const matches = (p: string) =>
    p.endsWith('.*')
      ? js.startsWith(p.slice(0, -1)) && js.slice(p.length - 1) === 'js'
      : js.startsWith(`${p}/`) || js === p;
  const included = pkg.files.filter((p) => !p.startsWith('!')).some(matches);
  const excluded = pkg.files
    .filter((p) => p.startsWith('!') && !p.includes('**'))
    .some((p) => matches(p.slice(1)));
  return included && !excluded;
}

const entries = [
  ...Object.values(pkg.exports).flatMap((e) => (typeof e === 'string' ? [] : [sourceOf(e.default)])),
  ...Object.values(pkg.bin).map(sourceOf),
];
const reached = reachable(entries);

describe('shipped files', () => {
  it('has an entry for the operator API', () => {
    expect(pkg.exports['./operate']).toEqual({
      types: './dist/operate/index.d.ts',
      default: './dist/operate/index.js',
    });
  });

  it('ships every file an entry point reaches', () => {
    expect([...reached].filter((f) => !shipped(f))).toEqual([]);
  });

  it('ships of the harness only the parts cronfence/testing and cronfence report use', () => {
    const harness = [...reached].filter((f) => f.startsWith('harness/')).sort();
    expect(harness).toEqual([
      'harness/faults/chaos.ts',
      'harness/faults/clock.ts',
      'harness/faults/pause-points.ts',
      'harness/faults/protocol-ops.ts',
      'harness/faults/sdk-faults.ts',
      'harness/faults/virtual-time.ts',
      'harness/local/dynamodb-local.ts',
      'harness/local/ecs-task-process.ts',
      'harness/local/local-state.ts',
      'harness/local/scheduler-emulator.ts',
      'harness/local/tables.ts',
      'harness/report/from-records.ts',
      'harness/report/overlap-marks.ts',
      'harness/report/recording.ts',
      'harness/report/time-axis.ts',
      'harness/report/timeline-model.ts',
      'harness/report/timeline.ts',
    ]);
    for (const f of [
      'harness/local/run-local.ts',
      'harness/drills/run-drills.ts',
      'harness/commands/start.ts',
      'harness/faults/retry.ts',
    ])
      expect([f, shipped(f)]).toEqual([f, false]);
  });

  it('keeps the development commands out of the installed binary', () => {
    expect(
      [...reached].filter((f) => /^(bin\/dev|harness\/(commands|drills|memory)|functions)\b/.test(f)),
    ).toEqual([]);
  });
});
