import { defineConfig } from "vitest/config";
import { FILE_LIMIT_MS } from "./test/support/limits.ts";

/**
 * Two projects:
 * - unit: test/unit/**, pure and fast, no fixtures.
 * - integration: test/integration/** and test/e2e/**. Its global setup
 *   (test/support/global-setup.ts) starts the fixtures once (registry,
 *   mirror, stub model, fixture binary) and provides them to every file
 *   (`fixtures()` from test/support/context.ts). Files run in parallel.
 */
export default defineConfig({
  test: {
    // The last lines of every run: its wall time and its five slowest files (.ci/run shows them).
    reporters: ["verbose", "./test/support/wall-time-reporter.ts"],
    pool: "forks",
    // Two cores: most of a file's time is spent waiting on child processes (Node, pnpm, verdaccio, tmux), so three files at once
    // keep both cores busy (vitest would run one, availableParallelism() - 1). A full run took 16.4 min against 23.6.
    // Measured again with the shared install (issue 23): 3 workers 25.5 min, 2 workers 28.9 min, both green.
    maxWorkers: 3,
    projects: [
      {
        test: {
          name: "unit",
          include: ["test/unit/**/*.test.ts"],
          setupFiles: ["test/support/compile-cache.ts"],
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
      {
        test: {
          name: "integration",
          include: ["test/integration/**/*.test.ts", "test/e2e/**/*.test.ts"],
          globalSetup: ["test/support/global-setup.ts"],
          setupFiles: ["test/support/compile-cache.ts", "test/support/file-limit.ts"],
          // One outer limit per file (test/support/limits.ts); no step inside waits on a clock.
          testTimeout: FILE_LIMIT_MS,
          hookTimeout: FILE_LIMIT_MS,
          teardownTimeout: 60_000,
        },
      },
    ],
  },
});
