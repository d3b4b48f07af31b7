/**
 * installVersion's refusals (spec: "Ownership rules", Versions and Interrupted
 * installs): a pnpm run whose gentle-pi or Pi is not exactly the pair leaves
 * no version (the folder it claimed is removed), and a folder another live
 * installer is installing stops the install with that folder untouched.
 * pnpm's entry is a stand-in script writing the two packages; "node" is a
 * copy of this Node.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, promises as fs, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { execPath } from "node:process";
import { dirname, join } from "pathe";
import { afterEach, describe, expect, it } from "vitest";
import { prefixLayout } from "../../src/core/layout";
import { unlockedProject } from "../../src/core/pi-update";
import { installVersion, VERSION_MARKER } from "../../src/install/version-install";
import { productionPins } from "../../src/pins/production";
import { requires } from "../support/capabilities";

const roots: string[] = [];
const children: ChildProcess[] = [];
afterEach(async () => {
  for (const child of children.splice(0)) child.kill("SIGKILL");
  for (const root of roots.splice(0)) await fs.rm(root, { recursive: true, force: true });
});

const engine = '"use strict";\n/* the whole engine */\n';
const project = unlockedProject("4.1.0", "1.6.0");
const id = project.manifest.id;
const env = { PATH: "/usr/bin:/bin" };

/** A POSIX prefix whose pnpm writes the given packages (null: leaves that one out), and records that it ran. */
async function prefix(packages: Record<string, string | null>) {
  const root = mkdtempSync(join(tmpdir(), "gss-install-exact-"));
  roots.push(root);
  const layout = prefixLayout({ home: root, platform: "linux", pins: productionPins });
  const ran = join(root, "pnpm-ran");
  await fs.mkdir(dirname(layout.node), { recursive: true });
  await fs.copyFile(execPath, layout.node);
  await fs.mkdir(dirname(layout.pnpmEntry), { recursive: true });
  const writes = Object.entries(packages)
    .filter(([, version]) => version !== null)
    .map(
      ([name, version]) =>
        `fs.mkdirSync("node_modules/${name}", { recursive: true }); fs.writeFileSync("node_modules/${name}/package.json", JSON.stringify({ name: "${name}", version: "${version}" }));`,
    );
  await fs.writeFile(layout.pnpmEntry, `import fs from "node:fs";\nfs.writeFileSync(${JSON.stringify(ran)}, "");\n${writes.join("\n")}\n`);
  return { layout, ran, dir: join(layout.versions, id) };
}

const PI = "@earendil-works/pi-coding-agent";

describe("installVersion checks the exact pair after pnpm", () => {
  it("installs when pnpm gave exactly gentle-pi 4.1.0 and Pi 1.6.0 (the stand-in works)", async (ctx) => {
    // Its stand-ins are POSIX programs (sh scripts, a POSIX layout's bin/node).
    requires(ctx, "posix-shell");
    const { layout, dir } = await prefix({ "gentle-pi": "4.1.0", [PI]: "1.6.0" });
    expect((await installVersion({ layout, distribution: project, env, engine })).status).toBe("installed");
    expect(readFileSync(join(dir, VERSION_MARKER), "utf8")).toBe(`${id}\n`);
  });

  for (const [what, packages, said] of [
    ["a different gentle-pi", { "gentle-pi": "4.1.1", [PI]: "1.6.0" }, "after pnpm ran, gentle-pi is 4.1.1; the version pins 4.1.0 exactly"],
    ["a different Pi", { "gentle-pi": "4.1.0", [PI]: "1.6.1" }, `after pnpm ran, ${PI} is 1.6.1; the version pins 1.6.0 exactly`],
    ["no Pi at all", { "gentle-pi": "4.1.0", [PI]: null }, `after pnpm ran, ${PI} is missing; the version pins 1.6.0 exactly`],
  ] as const) {
    it(`refuses ${what}, and removes the folder it claimed`, async (ctx) => {
      // Its stand-ins are POSIX programs (sh scripts, a POSIX layout's bin/node).
      requires(ctx, "posix-shell");
      const { layout, ran, dir } = await prefix(packages);
      await expect(installVersion({ layout, distribution: project, env, engine })).rejects.toThrow(said);
      expect(existsSync(ran)).toBe(true);
      expect(existsSync(dir)).toBe(false);
    });
  }
});

describe("installVersion and an unfinished install", () => {
  async function claimedBy(dir: string, pid: number) {
    await fs.mkdir(dir, { recursive: true });
    await fs.writeFile(join(dir, VERSION_MARKER), `installing ${id} ${pid}\n`);
    await fs.writeFile(join(dir, "half-written"), "theirs");
  }

  it("a live process's install stops this one, and its folder is left as it is", async () => {
    const { layout, ran, dir } = await prefix({ "gentle-pi": "4.1.0", [PI]: "1.6.0" });
    const other = spawn(process.execPath, ["-e", "setTimeout(() => {}, 60_000)"], { stdio: "ignore" });
    children.push(other);
    await claimedBy(dir, other.pid!);
    await expect(installVersion({ layout, distribution: project, env, engine })).rejects.toThrow(
      `another installer (process ${other.pid}) is installing versions/${id}; wait for it to finish, then run the installer again`,
    );
    expect(existsSync(ran)).toBe(false);
    expect(readFileSync(join(dir, VERSION_MARKER), "utf8")).toBe(`installing ${id} ${other.pid}\n`);
    expect(readFileSync(join(dir, "half-written"), "utf8")).toBe("theirs");
  });

  it("a gone process's install is removed and installed again", async (ctx) => {
    // Its stand-ins are POSIX programs (sh scripts, a POSIX layout's bin/node).
    requires(ctx, "posix-shell");
    const { layout, ran, dir } = await prefix({ "gentle-pi": "4.1.0", [PI]: "1.6.0" });
    const gone = spawn(process.execPath, ["-e", ""], { stdio: "ignore" });
    await new Promise((resolve) => gone.on("exit", resolve));
    await claimedBy(dir, gone.pid!);
    expect((await installVersion({ layout, distribution: project, env, engine })).status).toBe("installed");
    expect(existsSync(ran)).toBe(true);
    expect(existsSync(join(dir, "half-written"))).toBe(false);
  });
});
