import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

/**
 * The end-to-end lanes (test/lanes/lane.test.ts): the windows-e2e and
 * macos-e2e jobs of .github/workflows/ci.yml run them with
 * `npx vitest run --config test/lanes/vitest.config.ts`. Never collected by
 * `npm test`: the root config's projects include only test/unit,
 * test/integration and test/e2e. The file starts its own fixtures (no
 * global setup) and runs its tests one after another: each is a whole
 * install on one machine, and the Windows ones share the runner's HKCU Path.
 */
export default defineConfig({
  root: fileURLToPath(new URL("../..", import.meta.url)),
  test: {
    include: ["test/lanes/**/*.test.ts"],
    setupFiles: ["test/support/compile-cache.ts"],
    reporters: ["verbose"],
    pool: "forks",
    fileParallelism: false,
    testTimeout: 1_200_000,
    hookTimeout: 1_500_000,
    teardownTimeout: 120_000,
  },
});
