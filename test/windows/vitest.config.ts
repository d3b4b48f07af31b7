import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

/**
 * Native Windows tests (the real private-folder adapter, real
 * windowsProcessCheck, the startup offer's relaunch through cmd.exe,
 * self-uninstall's delayed removal). Never
 * collected by `npm test`: the root config's projects include only
 * test/unit, test/integration and test/e2e. Run in the Windows CI job with
 * `npx vitest run --config test/windows/vitest.config.ts`. Off Windows every
 * test fails (it does not skip).
 */
export default defineConfig({
  root: fileURLToPath(new URL("../..", import.meta.url)),
  test: {
    include: ["test/windows/**/*.test.ts"],
    reporters: ["verbose"],
    pool: "forks",
    fileParallelism: false,
    testTimeout: 120_000,
  },
});
