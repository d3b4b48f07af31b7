/**
 * The install lock across real processes (src/install/lock.ts): eight
 * installers start at once against a stale lock left by a dead process, and
 * each holds the lock for a moment while it writes to a shared log. At no
 * point may two of them hold it: every "in" is followed by its own "out".
 */
import { describe, expect, it } from "vitest";
import { spawn } from "node:child_process";
import { promises as fs } from "node:fs";
import { join } from "pathe";
import { bundleChild } from "../support/child-bundle";
import { scratchDir } from "../support/scratch";

const CHILD = `
import { appendFileSync } from "node:fs";
import { acquireInstallLock } from "../../src/install/lock";
import { prefixLayout } from "../../src/core/layout";
import { productionPins } from "../../src/pins/production";
const [home, log] = process.argv.slice(2);
const layout = prefixLayout({ home, platform: "linux", pins: productionPins });
(async () => {
  const lock = await acquireInstallLock(layout, 60_000);
  appendFileSync(log, "in " + process.pid + "\\n");
  await new Promise((r) => setTimeout(r, 40));
  appendFileSync(log, "out " + process.pid + "\\n");
  await lock.release();
})();
`;

describe("the install lock across processes", () => {
  it("of eight installers racing for a stale lock, never two hold it at once, and every one gets it in turn", async () => {
    const dir = scratchDir("gss-lock-");
    const home = join(dir, "home");
    await fs.mkdir(join(home, ".gentle-shell"), { recursive: true });
    const child = await bundleChild(CHILD, join(dir, "child.cjs"), "lock-child.ts");
    for (let round = 0; round < 3; round++) {
      const log = join(dir, `log-${round}`);
      await fs.writeFile(log, "");
      await fs.writeFile(join(home, ".gentle-shell", ".gentle-shell-setup.lock"), "999999999 stale\n");
      const codes = await Promise.all(
        Array.from(
          { length: 8 },
          () =>
            new Promise<number | null>((resolve) => {
              const p = spawn(process.execPath, [child, home, log], { stdio: "inherit" });
              p.on("exit", (code) => resolve(code));
            }),
        ),
      );
      expect(codes).toEqual(Array(8).fill(0));
      const lines = (await fs.readFile(log, "utf8")).trim().split("\n");
      expect(lines).toHaveLength(16);
      for (let i = 0; i < lines.length; i += 2) {
        const [inWord, pid] = lines[i]!.split(" ");
        expect(inWord).toBe("in");
        expect(lines[i + 1]).toBe(`out ${pid}`);
      }
    }
  });
});
