/**
 * installVersion's Windows rules, run with a win32 layout in a scratch
 * folder (issue 24, defects 4 and 5). Our "node.exe" is this very Node
 * (a copy), and pnpm's entry is a stand-in script that records
 * what pnpm's children would get and fails, so no real pnpm runs. The same
 * test runs on Linux and on Windows.
 */
import { execPath } from "node:process";
import { existsSync, mkdtempSync, promises as fs } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "pathe";
import { afterEach, describe, expect, it } from "vitest";
import { prefixLayout } from "../../src/core/layout";
import { unlockedProject } from "../../src/core/pi-update";
import { RUNTIME_MARKER } from "../../src/install/runtime/marker";
import { installVersion } from "../../src/install/version-install";
import { productionPins } from "../../src/pins/production";
import { has } from "../support/capabilities";

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
  await fs.copyFile(execPath, layout.node);
  await fs.mkdir(dirname(layout.pnpmEntry), { recursive: true });
  // What pnpm's children would find: whether TEMP names a folder, and its value.
  await fs.writeFile(
    layout.pnpmEntry,
    // pnpm's entry is an ES module (pnpm.mjs).
    `import fs from "node:fs";
const t = process.env.TEMP;
fs.writeFileSync(${JSON.stringify(record)}, (t && fs.statSync(t, { throwIfNoEntry: false })?.isDirectory() ? "TEMP is a folder\\n" : "") + "TEMP=" + t + "\\n");
process.exit(1);
`,
  );
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
    const error = await installVersion({ layout, distribution: project, env, engine: Buffer.from(""), go: true }).catch((e: Error) => e);
    expect(String(error)).toMatch(/pnpm/);
    expect((await fs.readFile(record, "utf8")).split("\n")).toEqual(["TEMP is a folder", `TEMP=${layout.tmp}`, ""]);
    if (has("posix-modes")) expect((await fs.stat(layout.tmp)).mode & 0o777).toBe(0o700);
  });
});
