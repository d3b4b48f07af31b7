/**
 * installVersion's work beside pnpm (`alongside`): an upgrade starts the new
 * version's module while pnpm installs it, so the engine, its start file and
 * its launch part must be in the folder before pnpm runs, and a failed
 * install must stop that work before it removes the folder. pnpm's entry is
 * a stand-in script that records what it found and then fails or writes the
 * two packages; our "node" is this very Node (a copy). A win32 layout with a
 * stand-in pinned Go, so the same test runs on Linux and on Windows.
 */
import { execPath } from "node:process";
import { existsSync, mkdtempSync, promises as fs, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "pathe";
import { afterEach, describe, expect, it } from "vitest";
import { prefixLayout } from "../../src/core/layout";
import { unlockedProject } from "../../src/core/pi-update";
import { ENGINE_PATH, ENGINE_START_PATH, engineWithLaunchPart } from "../../src/install/engine-start";
import { RUNTIME_MARKER } from "../../src/install/runtime/marker";
import { installVersion, VERSION_MARKER } from "../../src/install/version-install";
import { productionPins } from "../../src/pins/production";

const roots: string[] = [];
afterEach(async () => {
  for (const root of roots.splice(0)) await fs.rm(root, { recursive: true, force: true });
});

const engine = engineWithLaunchPart('"use strict";\n/* the whole engine */\n', '"use strict";\n/* the launch part */\n');
const project = unlockedProject("4.1.0", "1.6.0");
const env = { PATH: "/usr/bin:/bin" };

/** A prefix whose pnpm records whether the work beside it had started, then fails or installs the two packages. */
async function prefix(pnpm: "fails" | "installs") {
  const root = mkdtempSync(join(tmpdir(), "gss-install-alongside-"));
  roots.push(root);
  const layout = prefixLayout({ home: root, platform: "win32", pins: productionPins, windowsPrefix: join(root, "gentle-shell") });
  const seen = join(root, "pnpm-saw");
  const started = join(root, "started");
  await fs.mkdir(dirname(layout.node), { recursive: true });
  await fs.copyFile(execPath, layout.node);
  await fs.mkdir(dirname(layout.pnpmEntry), { recursive: true });
  const write = (name: string, version: string) =>
    `fs.mkdirSync("node_modules/${name}", { recursive: true }); fs.writeFileSync("node_modules/${name}/package.json", JSON.stringify({ name: "${name}", version: "${version}" }));`;
  await fs.writeFile(
    layout.pnpmEntry,
    `import fs from "node:fs";
fs.writeFileSync(${JSON.stringify(seen)}, fs.existsSync(${JSON.stringify(started)}) ? "started" : "not started");
${pnpm === "fails" ? "process.exit(1);" : `${write("gentle-pi", "4.1.0")}\n${write("@earendil-works/pi-coding-agent", "1.6.0")}`}
`,
  );
  await fs.mkdir(join(layout.goDir, "bin"), { recursive: true });
  await fs.writeFile(join(dirname(layout.goDir), RUNTIME_MARKER), "go\n");
  await fs.writeFile(join(layout.goDir, "bin", "go.exe"), "");
  return { layout, seen, started, dir: join(layout.versions, project.manifest.id) };
}

describe("installVersion with work beside pnpm", () => {
  it("starts it once the engine, its start file and its launch part are in the folder, before pnpm runs; the marker still comes last", async () => {
    const { layout, seen, started, dir } = await prefix("installs");
    const calls: string[] = [];
    const found: Record<string, boolean | string> = {};
    const alongside = {
      start: (versionDir: string) => {
        calls.push("start");
        found.dir = versionDir;
        found.engine = existsSync(join(versionDir, ENGINE_PATH));
        found.start = existsSync(join(versionDir, ENGINE_START_PATH));
        found.launch = existsSync(join(versionDir, ".gentle-shell", "launch.cjs"));
        found.packages = existsSync(join(versionDir, "node_modules"));
        found.marker = readFileSync(join(versionDir, VERSION_MARKER), "utf8").startsWith("installing ");
        writeFileSync(started, "");
      },
      stop: async () => void calls.push("stop"),
    };
    const done = await installVersion({ layout, distribution: project, env, engine, go: true, alongside });
    expect(done.status).toBe("installed");
    expect(calls).toEqual(["start"]);
    expect(found).toEqual({ dir, engine: true, start: true, launch: true, packages: false, marker: true });
    expect(await fs.readFile(seen, "utf8")).toBe("started");
    expect(await fs.readFile(join(dir, ENGINE_PATH), "utf8")).toBe(engine);
    expect(await fs.readFile(join(dir, VERSION_MARKER), "utf8")).toBe(`${project.manifest.id}\n`);
  });

  it("a failed install stops it, and waits for it, before the folder goes", async () => {
    const { layout, seen, started, dir } = await prefix("fails");
    let folderAtStop: boolean | null = null;
    const alongside = {
      start: () => writeFileSync(started, ""),
      stop: async () => {
        await new Promise((resolve) => setTimeout(resolve, 50));
        folderAtStop = existsSync(dir);
      },
    };
    await expect(installVersion({ layout, distribution: project, env, engine, go: true, alongside })).rejects.toThrow(/pnpm/);
    expect(await fs.readFile(seen, "utf8")).toBe("started");
    expect(folderAtStop).toBe(true);
    expect(existsSync(dir)).toBe(false);
  });
});
