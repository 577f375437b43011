import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'self',
          include: ['test/**/*.test.ts'],
          testTimeout: 30_000,
        },
      },
      {
        test: {
          name: 'conformance',
          include: ['suites/**/*.test.ts'],
          setupFiles: ['suites/setup.ts'],
          globalSetup: ['suites/global-setup.ts'],
          // Suites wait on the network, not the CPU: run files side by side even on two cores.
          maxConcurrency: 5,
        },
      },
    ],
  },
})
