import { defineConfig } from 'vitest/config';

// Three layers (docs/design.md "Conventions"): unit (pure, no network), integ (DynamoDB Local via globalSetup), cdk (synth only).
export default defineConfig({
  test: {
    // Vitest's default on 2 cores is ONE worker (cores - 1), so the files ran one after another while
    // each mostly waits on DynamoDB Local or a child process: 2 workers overlap those waits.
    maxWorkers: 2,
    projects: [
      // Property tests and the explorer run many cases: a 5 s default fails them on a loaded machine.
      {
        test: { name: 'unit', include: ['test/unit/**/*.test.ts'], environment: 'node', testTimeout: 60_000 },
      },
      {
        test: {
          name: 'integ',
          include: ['test/integ/**/*.test.ts'],
          globalSetup: ['test/helpers/dynamodb-global-setup.ts'],
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
      {
        test: { name: 'cdk', include: ['test/cdk/**/*.test.ts'], testTimeout: 180_000, hookTimeout: 180_000 },
      },
    ],
  },
});
