/**
 * Layering (unit): the shipped runtime is apart from its harness. Walks the relative imports (type
 * imports too) from the runtime entry point and the example Lambda handlers, and checks that
 * imports flow one way — core ← store ← runtime ← operate ← cli, and runtime ← (cdk, harness,
 * testing) — with no cycle in lib/ or operate/.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const IMPORT =
  /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s*['"](\.{1,2}\/[^'"]+)['"]|import\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g;

/** Repo-relative paths of the files `file` imports (relative specifiers only; `.js` → `.ts`). */
function importsOf(file: string): string[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  const out: string[] = [];
  for (const m of text.matchAll(IMPORT)) {
    const spec = m[1] ?? m[2];
    if (spec === undefined || spec.endsWith('.json')) continue;
    const target = relative(ROOT, resolve(ROOT, dirname(file), spec)).replace(/\.js$/, '.ts');
    if (existsSync(join(ROOT, target))) out.push(target);
  }
  return out;
}

/** Every file reachable from `entries`. */
function reachable(entries: readonly string[]): Set<string> {
  const seen = new Set<string>();
  const todo = [...entries];
  while (todo.length > 0) {
    const f = todo.pop() as string;
    if (seen.has(f)) continue;
    seen.add(f);
    todo.push(...importsOf(f));
  }
  return seen;
}

function filesUnder(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile() && d.name.endsWith('.ts'))
    .map((d) => relative(ROOT, join(d.parentPath, d.name)));
}

const layerOf = (f: string): string => {
  const [top, second] = f.split('/');
  return top === 'lib' && ['core', 'store', 'runtime', 'effects'].includes(String(second))
    ? `lib/${second}`
    : String(top);
};

/** What each runtime layer may import (besides itself). lib/errors.ts and lib/index.ts are shared. */
const ALLOWED: Record<string, readonly string[]> = {
  'lib/core': ['lib/errors.ts'],
  'lib/store': ['lib/core', 'lib/errors.ts'],
  'lib/effects': ['lib/core', 'lib/store', 'lib/errors.ts'],
  'lib/runtime': ['lib/core', 'lib/store', 'lib/effects', 'lib/errors.ts'],
};

describe('import graph', () => {
  const HANDLERS = [
    'functions/daily-report.ts',
    'functions/merchant-settlement.ts',
    'functions/nightly-export.ts',
    'lib/entries/sweeper.ts',
    'lib/entries/ecs-task.ts',
    'lib/entries/tracing.ts',
  ];

  it.each([
    ['lib/index.ts'],
    ['lib/entries/runtime.ts'],
    ['lib/entries/observability.ts'],
    ...HANDLERS.map((h) => [h]),
  ])('reaches no harness, CLI, CDK or test file from %s', (entry) => {
    const outside = [...reachable([entry])].filter((f) => /^(harness|cli|cdk|test|bench)\//.test(f));
    expect(outside).toEqual([]);
  });

  it('has no file under lib/ importing the harness, the CLI, the CDK app or the examples', () => {
    const bad = filesUnder('lib').flatMap((f) =>
      importsOf(f)
        .filter((t) => !t.startsWith('lib/'))
        .map((t) => `${f} -> ${t}`),
    );
    expect(bad).toEqual([]);
  });

  it('imports one way inside lib/: core <- store <- effects <- runtime', () => {
    const bad = filesUnder('lib').flatMap((f) => {
      const allowed = ALLOWED[layerOf(f)];
      if (!allowed) return [];
      return importsOf(f)
        .filter((t) => layerOf(t) !== layerOf(f) && !allowed.some((a) => t === a || layerOf(t) === a))
        .map((t) => `${f} -> ${t}`);
    });
    expect(bad).toEqual([]);
  });

  it('keeps the operator API between the runtime and the CLI: operate/ imports no CLI, CDK or test file', () => {
    const bad = filesUnder('operate').flatMap((f) =>
      importsOf(f)
        .filter((t) => /^(cli|cdk|testing|test|bench|functions|bin|scripts)\//.test(t))
        .map((t) => `${f} -> ${t}`),
    );
    expect(bad).toEqual([]);
  });

  it('lets operate/ reach only the harness parts the package ships (the local state file, the Lambda context)', () => {
    const harness = [...reachable(['operate/index.ts'])].filter((f) => f.startsWith('harness/')).sort();
    expect(harness).toEqual(['harness/local/local-state.ts', 'harness/local/scheduler-emulator.ts']);
  });

  it('has the CLI reach stores, effects and the runtime only through the operator API', () => {
    const bad = filesUnder('cli').flatMap((f) =>
      importsOf(f)
        .filter((t) => /^lib\/(store|effects|runtime)\//.test(t) && t !== 'lib/store/schema.ts')
        .map((t) => `${f} -> ${t}`),
    );
    expect(bad).toEqual([]);
  });

  it.each([['lib'], ['operate']])('has no import cycle in %s/ (type imports included)', (dir) => {
    const files = filesUnder(dir);
    const state = new Map<string, 'open' | 'done'>();
    const cycles: string[] = [];
    const visit = (f: string, path: string[]) => {
      if (state.get(f) === 'done') return;
      if (state.get(f) === 'open') {
        cycles.push([...path.slice(path.indexOf(f)), f].join(' -> '));
        return;
      }
      state.set(f, 'open');
      for (const t of importsOf(f)) visit(t, [...path, f]);
      state.set(f, 'done');
    };
    for (const f of files) visit(f, []);
    expect(cycles).toEqual([]);
  });
});
