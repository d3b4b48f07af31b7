import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

/**
 * The Windows lane's own checks (test/wine/*.test.ts), run by Windows Node
 * under Wine from test/wine/lane.sh. Never collected by `npm test`: the root
 * config's projects include only test/unit, test/integration and test/e2e.
 */
export default defineConfig({
  root: fileURLToPath(new URL("../..", import.meta.url)),
  test: {
    include: ["test/wine/**/*.test.ts"],
    reporters: ["verbose"],
    pool: "forks",
    fileParallelism: false,
    testTimeout: 300_000,
  },
});
