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
afterAll(() => {
  for (const dir of made.splice(0)) {
    try {
      rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
    } catch {
      // A folder a test made unremovable on purpose stays; the system's temp cleaning takes it.
    }
  }
});

export function scratchDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}
