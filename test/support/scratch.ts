/**
 * Scratch folders for tests, removed when the test file ends. A full install
 * takes about 350 MB (our Node, the pnpm store, the version), so homes left
 * behind fill a disk within a few runs.
 *
 *   import { scratchDir } from "../support/scratch";
 *   const home = join(scratchDir("gss-e2e-"), "home");
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll } from "vitest";

const made: string[] = [];

// Registered while the importing test file is collected, so it runs when that file is done.
afterAll(async () => {
  for (const dir of made.splice(0)) {
    // A process a test started may still be exiting and writing into it (Node writes its compile
    // cache at exit), so a removal that meets new entries is tried again a little later.
    for (let attempt = 1; attempt <= 5; attempt++) {
      try {
        rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
        break;
      } catch {
        // A folder a test made unremovable on purpose stays; the system's temp cleaning takes it.
        await new Promise((r) => setTimeout(r, 400));
      }
    }
  }
});

export function scratchDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}
