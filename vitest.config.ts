import { defineConfig } from "vitest/config";
import { FILE_LIMIT_MS } from "./test/support/limits.ts";

/**
 * What the integration and e2e projects share: the fixtures' global setup
 * (test/support/global-setup.ts starts them once per run, however many of the
 * two projects run), the compile cache and the one outer limit per file.
 */
const withFixtures = {
  globalSetup: ["test/support/global-setup.ts"],
  setupFiles: ["test/support/compile-cache.ts", "test/support/file-limit.ts"],
  // One outer limit per file (test/support/limits.ts); no step inside waits on a clock.
  testTimeout: FILE_LIMIT_MS,
  hookTimeout: FILE_LIMIT_MS,
  teardownTimeout: 60_000,
};

/**
 * Three projects:
 * - unit: test/unit/**, pure and fast, no fixtures.
 * - integration: test/integration/**, one part of the product against the
 *   fixtures (an acquisition, the registry, a release, the offline bundle).
 * - e2e: test/e2e/**, the fixture binary's install and the installed
 *   launcher, as a user runs them.
 * The last two get the fixtures (registry, mirror, stub model, fixture
 * binary) from the same global setup, started once for the run, and read
 * them with `fixtures()` from test/support/context.ts. Files run in parallel.
 */
export default defineConfig({
  test: {
    // The last lines of every run: its wall time and its ten slowest files (.ci/run shows them).
    reporters: ["verbose", "./test/support/wall-time-reporter.ts"],
    pool: "forks",
    // Two cores: most of a file's time is spent waiting on child processes (Node, pnpm, verdaccio, tmux), so three files at once
    // keep both cores busy (vitest would run one, availableParallelism() - 1). A full run took 16.4 min against 23.6.
    // Measured again with the shared install (issue 23): 3 workers 25.5 min, 2 workers 28.9 min, both green.
    // The limit is the run's, across projects: integration and e2e files share these three workers.
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
      { test: { name: "integration", include: ["test/integration/**/*.test.ts"], ...withFixtures } },
      { test: { name: "e2e", include: ["test/e2e/**/*.test.ts"], ...withFixtures } },
    ],
  },
});
