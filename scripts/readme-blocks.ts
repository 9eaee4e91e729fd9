/**
 * The README's consumer steps as the consumer test runs them: every fenced code block of the section
 * "Use cronfence in your project", each introduced by a marker comment on the line before it:
 *
 * - `<!-- consumer: file PATH -->`: the block is the file PATH of the new project, written exactly as
 *   shown (the list item's indentation removed);
 * - `<!-- consumer: run -->`: a shell block, run in bash in the project directory;
 * - `<!-- consumer: background -->`: a shell block that keeps running (a local DynamoDB held for the
 *   CLI), started in the background before the blocks after it;
 * - `<!-- consumer: not run (WHY) -->`: shown only (the deploy).
 *
 * A block without a marker, or a marker not followed by a block, is an error naming its line, so an
 * edit of the README cannot drop a step from the test unnoticed.
 *
 * Run as `tsx scripts/readme-blocks.ts README.md OUT_DIR`: writes OUT_DIR/blocks.tsv (one line per
 * block: kind, path or `-`, the file holding its text, its README line) and the texts beside it.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** The README section whose blocks the consumer test runs. */
export const CONSUMER_SECTION = 'Use cronfence in your project';

/** What the consumer test does with a block. */
export type BlockKind = 'file' | 'run' | 'background' | 'not-run';

/** One fenced code block of the consumer section. */
export interface ConsumerBlock {
  readonly kind: BlockKind;
  /** The project file a `file` block is. */
  readonly path?: string;
  /** Why a `not-run` block is not run. */
  readonly why?: string;
  /** The fence's language (`ts`, `sh`, `json`). */
  readonly lang: string;
  /** The block's text, without the list item's indentation, ending in a newline. */
  readonly text: string;
  /** 1-based README line of its opening fence. */
  readonly line: number;
}

const MARKER = /^\s*<!--\s*consumer:\s*(.*?)\s*-->\s*$/;
const FENCE = /^(\s*)```(\S*)\s*$/;

/** A README problem: the line and what is wrong there. */
export class ReadmeBlockError extends Error {
  override readonly name = 'ReadmeBlockError';
}

function parseMarker(body: string, line: number): Pick<ConsumerBlock, 'kind' | 'path' | 'why'> {
  if (body === 'run' || body === 'background') return { kind: body };
  const file = /^file\s+(\S+)$/.exec(body);
  if (file?.[1]) {
    const path = file[1];
    if (path.startsWith('/') || path.split('/').includes('..'))
      throw new ReadmeBlockError(
        `README.md:${line}: marker file path "${path}" must stay inside the project`,
      );
    return { kind: 'file', path };
  }
  const notRun = /^not run \((.+)\)$/.exec(body);
  if (notRun?.[1]) return { kind: 'not-run', why: notRun[1] };
  throw new ReadmeBlockError(
    `README.md:${line}: unknown marker "<!-- consumer: ${body} -->" (expected "file PATH", "run", "background" or "not run (WHY)")`,
  );
}

/**
 * The consumer section's blocks, in README order.
 * @throws ReadmeBlockError naming the line for a missing section, a block without a marker, a marker
 *   without a block, an unknown marker or an unclosed fence.
 */
export function consumerBlocks(readme: string): ConsumerBlock[] {
  const lines = readme.split('\n');
  const start = lines.indexOf(`## ${CONSUMER_SECTION}`);
  if (start < 0) throw new ReadmeBlockError(`README.md: no "## ${CONSUMER_SECTION}" section`);
  const endAt = lines.findIndex((l, i) => i > start && l.startsWith('## '));
  const end = endAt < 0 ? lines.length : endAt;
  const blocks: ConsumerBlock[] = [];
  let pending: { marker: Pick<ConsumerBlock, 'kind' | 'path' | 'why'>; line: number } | undefined;
  for (let i = start + 1; i < end; i++) {
    const text = lines[i] ?? '';
    const marker = MARKER.exec(text);
    if (marker) {
      if (pending)
        throw new ReadmeBlockError(`README.md:${pending.line}: marker not followed by a code block`);
      pending = { marker: parseMarker(marker[1] ?? '', i + 1), line: i + 1 };
      continue;
    }
    const fence = FENCE.exec(text);
    if (!fence) {
      if (pending && text.trim() !== '')
        throw new ReadmeBlockError(`README.md:${pending.line}: marker not followed by a code block`);
      continue;
    }
    if (!pending)
      throw new ReadmeBlockError(
        `README.md:${i + 1}: code block without a <!-- consumer: ... --> marker on the line before it`,
      );
    const indent = fence[1] ?? '';
    const body: string[] = [];
    let j = i + 1;
    for (; j < end && !(lines[j] ?? '').startsWith(`${indent}\`\`\``); j++) {
      const l = lines[j] ?? '';
      body.push(l.startsWith(indent) ? l.slice(indent.length) : l.trimStart());
    }
    if (j >= end) throw new ReadmeBlockError(`README.md:${i + 1}: code block is not closed`);
    blocks.push({ ...pending.marker, lang: fence[2] ?? '', text: `${body.join('\n')}\n`, line: i + 1 });
    pending = undefined;
    i = j;
  }
  if (pending) throw new ReadmeBlockError(`README.md:${pending.line}: marker not followed by a code block`);
  return blocks;
}

/** Write the blocks for the consumer test: `outDir/blocks.tsv` and one text file per block. */
export function writeBlocks(blocks: readonly ConsumerBlock[], outDir: string): void {
  mkdirSync(outDir, { recursive: true });
  const rows = blocks.map((b, n) => {
    const file = join(outDir, `${String(n).padStart(2, '0')}.${b.kind}`);
    writeFileSync(file, b.text);
    return [b.kind, b.path ?? '-', file, String(b.line)].join('\t');
  });
  writeFileSync(join(outDir, 'blocks.tsv'), `${rows.join('\n')}\n`);
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  const [readme, outDir] = process.argv.slice(2);
  if (!readme || !outDir) {
    console.error('usage: tsx scripts/readme-blocks.ts README.md OUT_DIR');
    process.exit(2);
  }
  try {
    writeBlocks(consumerBlocks(readFileSync(readme, 'utf8')), outDir);
  } catch (err) {
    console.error(`readme-blocks: ${(err as Error).message}`);
    process.exit(1);
  }
}
