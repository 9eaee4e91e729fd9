/**
 * Unit: the public API of every entry point of the package (`exports` in package.json), names and
 * signatures, read with the TypeScript compiler API from the source entry files. The snapshot
 * (`__snapshots__/api-surface.txt`) makes any change of surface a visible diff; update it with
 * `npx vitest run test/unit/package/api-surface.test.ts -u` when the change is meant.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { apiSurface, ENTRY_POINTS } from '../../helpers/api-surface.js';

const ROOT = resolve(import.meta.dirname, '../../..');

describe('public API', () => {
  it('covers every subpath of the exports map', () => {
    const pkg = JSON.parse(readFileSync(resolve(ROOT, 'package.json'), 'utf8')) as {
      exports: Record<string, unknown>;
    };
    const subpaths = Object.keys(pkg.exports)
      .filter((k) => k !== './package.json')
      .map((k) => (k === '.' ? 'cronfence' : `cronfence/${k.slice(2)}`));
    expect(subpaths.sort()).toEqual(Object.keys(ENTRY_POINTS).sort());
  });

  it('matches the recorded names and signatures of every entry point', async () => {
    const surface = apiSurface(ROOT);
    const text = Object.entries(surface)
      .map(([entry, lines]) => `## ${entry} (${lines.length} names)\n${lines.join('\n')}\n`)
      .join('\n');
    // The root export is the job author's vocabulary only.
    expect(surface.cronfence?.length).toBe(50);
    await expect(text).toMatchFileSnapshot('__snapshots__/api-surface.txt');
  }, 180_000);
});
