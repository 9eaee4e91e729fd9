/**
 * Unit: `npm run explore` shows progress while it runs (on stderr, so stdout keeps only the report),
 * and its report is unchanged.
 */
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { runExplorer } from '../../../harness/drills/explorer/cli.js';

describe('explore progress', () => {
  afterEach(() => vi.restoreAllMocks());

  it('draws a progress bar on its own stream and ends with the full count, the report on stdout after it', async () => {
    const stream = new PassThrough();
    let progress = '';
    stream.on('data', (b: Buffer) => {
      progress += b.toString();
    });
    const printed: string[] = [];
    vi.spyOn(console, 'log').mockImplementation((line: unknown) => {
      printed.push(String(line));
    });
    const ok = await runExplorer({ runs: 25, seed: 7, dynamo: 0, maxWorkers: 2, progress: stream });
    const lines = progress.split('\n').filter((l) => l.trim() !== '');
    expect(ok).toBe(true);
    expect(lines[0]).toBe('In memory: [----------------------------------------] 0/25 histories, 0s');
    expect(lines.at(-1)?.replace(/, \d+s$/, ', Ns')).toBe(
      'In memory: [========================================] 25/25 histories, Ns',
    );
    expect(printed.join('\n')).not.toContain('/25 histories');
    expect(printed[0]).toMatch(/^\nIn memory: 25 histories \(seed 7\), \d+ deliveries, /);
    expect(printed.at(-1)).toBe('\nAll invariants held in every history.');
  });
});
