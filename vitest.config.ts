import { configDefaults, defineConfig } from 'vitest/config'

/**
 * `unit` needs nothing but Node; `integration` (*.int.test.ts) gets a real Kafka
 * broker and Redis from tests/support/global-setup.ts. Both keep the run's
 * temporary files in one directory removed at the end (tests/support/temp-root.ts).
 */
export default defineConfig({
  test: {
    // Integration files each start whole stacks and CI machines have two cores, so
    // files run one at a time, each in its own process. Vitest 3 only accepts this
    // option at the root, so unit files are sequential too (they are quick).
    fileParallelism: false,
    projects: [
      {
        test: {
          name: 'unit',
          include: ['services/**/*.test.ts'],
          exclude: [...configDefaults.exclude, '**/*.int.test.ts'],
          pool: 'forks',
          globalSetup: ['tests/support/temp-root.ts'],
          // A few unit files (the hostile traces, the API fuzz, the evaluations) run seconds of honest work, which a
          // throttled CI machine can stretch past Vitest's 5 s default; a hung test still fails.
          testTimeout: 30_000,
        },
      },
      {
        test: {
          name: 'integration',
          include: ['services/**/*.int.test.ts', 'tests/**/*.int.test.ts'],
          exclude: [...configDefaults.exclude],
          pool: 'forks',
          globalSetup: ['tests/support/temp-root.ts', 'tests/support/global-setup.ts'],
          testTimeout: 120_000,
          hookTimeout: 180_000,
          // Unit files first: a quick failure there shouldn't wait behind the stacks.
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
})
