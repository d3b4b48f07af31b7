/**
 * installVersion's Windows rules, run here with a win32 layout in a scratch
 * folder (issue 24, defects 4 and 5). Our "node.exe" is a shell script that
 * records what pnpm's environment would get and fails, so no real pnpm runs.
 */
import { existsSync, mkdtempSync, promises as fs } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "pathe";
import { afterEach, describe, expect, it } from "vitest";
import { prefixLayout } from "../../src/core/layout";
import { unlockedProject } from "../../src/core/pi-update";
import { RUNTIME_MARKER } from "../../src/install/runtime/marker";
import { installVersion } from "../../src/install/version";
import { productionPins } from "../../src/pins/production";

const roots: string[] = [];
afterEach(async () => {
  for (const root of roots.splice(0)) await fs.rm(root, { recursive: true, force: true });
});

async function windowsPrefix(o: { go: boolean }) {
  const root = mkdtempSync(join(tmpdir(), "gss-install-version-win-"));
  roots.push(root);
  const layout = prefixLayout({ home: root, platform: "win32", pins: productionPins, windowsPrefix: join(root, "gentle-shell") });
  const record = join(root, "record");
  await fs.mkdir(dirname(layout.node), { recursive: true });
  // What pnpm's children would find: TEMP's folder, and which go is first on the PATH.
  await fs.writeFile(layout.node, `#!/bin/sh\n{ [ -d "$TEMP" ] && echo "TEMP is a folder"; echo "TEMP=$TEMP"; } > '${record}'\nexit 1\n`, { mode: 0o755 });
  if (o.go) {
    await fs.mkdir(join(layout.goDir, "bin"), { recursive: true });
    await fs.writeFile(join(dirname(layout.goDir), RUNTIME_MARKER), "go\n");
    await fs.writeFile(join(layout.goDir, "bin", "go.exe"), "");
  }
  return { layout, record };
}

const project = unlockedProject("4.1.0", "1.6.0");
const env = { PATH: "/usr/bin:/bin" };

describe("installVersion on Windows", () => {
  it("refuses without our pinned Go under runtime/go, before pnpm runs (defect 5)", async () => {
    const { layout, record } = await windowsPrefix({ go: false });
    await expect(installVersion({ layout, distribution: project, env, engine: Buffer.from(""), go: true })).rejects.toThrow(
      "on Windows a version is installed only with the pinned Go under runtime/go, so gentle-pi never builds with the user's Go; it is not there, so run the installer again",
    );
    await expect(fs.stat(record)).rejects.toThrow();
    expect(existsSync(layout.versions)).toBe(false);
  });

  it("gives pnpm's children a real tmp\\ folder of ours as TEMP on an online install (defect 4)", async () => {
    const { layout, record } = await windowsPrefix({ go: true });
    await expect(installVersion({ layout, distribution: project, env, engine: Buffer.from(""), go: true })).rejects.toThrow(/pnpm/);
    expect((await fs.readFile(record, "utf8")).split("\n")).toEqual(["TEMP is a folder", `TEMP=${layout.tmp}`, ""]);
    expect((await fs.stat(layout.tmp)).mode & 0o777).toBe(0o700);
  });
});
