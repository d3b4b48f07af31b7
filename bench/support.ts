/** What bench/run.mjs needs from the test support: the fixture Node archive, the mirror, pins for them. */
import type { Pins } from "../src/pins/types";
import { productionPins } from "../src/pins/production";
export { ensureNodeArchive } from "../test/support/node-archive";
export { startMirror } from "../test/support/mirror";

/** Production pins, with the fixture Node archive's hash for linux-x64. */
export function benchPins(archive: { path: string; sha256: string; size: number }): Pins {
  return {
    ...productionPins,
    kind: "fixture",
    node: {
      ...productionPins.node,
      source: "bench: fixture Node archive (test/support/node-archive.ts)",
      archives: { "linux-x64": { path: archive.path, sha256: archive.sha256, size: archive.size, maxBytes: 100 * 1024 * 1024 } },
    },
  };
}
