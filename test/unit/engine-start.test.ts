/**
 * The engine's start file (src/install/engine-start.ts) on the real Node
 * 24.21.0: it turns on Node's compile cache in the version's own 0700
 * folder whatever the umask, the engine then reads its compiled code back,
 * and any folder it cannot trust (a link, a file, another mode) never stops
 * the engine or makes it print anything.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, promises as fs, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "pathe";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  COMPILE_CACHE_NAME,
  ENGINE_START_MARKER,
  engineStartScript,
  engineWithLaunchPart,
  LAUNCH_PART_BEGIN,
  LAUNCH_PART_END,
  launchPartOf,
} from "../../src/install/engine-start";
import { has, requires } from "../support/capabilities";
import { toolchain } from "../support/toolchain";

let node: string;
let root: string;
let dir: string;

beforeAll(async () => {
  if (has("posix-shell")) node = await (await toolchain()).ensureNodeBinary();
});
beforeEach(async () => {
  // Its real path: the product answers real paths, and a TMPDIR may be reached through a link (macOS: /var -> /private/var).
  root = realpathSync.native(mkdtempSync(join(tmpdir(), "gss-engine-start-")));
  dir = join(root, "versions", "4.1.0-1.6.0", ".gentle-shell");
  await fs.mkdir(dir, { recursive: true });
  await fs.writeFile(join(dir, "start.cjs"), engineStartScript());
  // A stand-in engine that reports where it runs from, its arguments and the compile cache its process uses.
  await fs.writeFile(
    join(dir, "engine.cjs"),
    `process.stdout.write(JSON.stringify({ filename: __filename, args: process.argv.slice(2), cache: require("node:module").getCompileCacheDir() ?? null, env: process.env.NODE_COMPILE_CACHE ?? null }));\n`,
  );
});
afterEach(async () => {
  await fs.rm(root, { recursive: true, force: true });
});

/** Start the engine as the launcher does, under `umask`. */
function start(umask = "000", extra: NodeJS.ProcessEnv = {}) {
  const env: NodeJS.ProcessEnv = { PATH: "/usr/bin:/bin", HOME: root, ...extra };
  const r = spawnSync("/bin/sh", ["-c", `umask ${umask}; exec "$0" "$@"`, node, join(dir, "start.cjs"), "--gentle-shell-engine", "--version"], {
    encoding: "utf8",
    env,
  });
  return { ...r, seen: r.stdout ? (JSON.parse(r.stdout) as { filename: string; args: string[]; cache: string | null; env: string | null }) : null };
}

const cacheDir = () => join(dir, COMPILE_CACHE_NAME);
const mode = async (path: string) => (await fs.lstat(path)).mode & 0o777;

describe("the engine's start file", () => {
  it("carries its marker, and runs engine.cjs with the launcher's arguments", async (ctx) => {
    // The launcher starts the engine through sh with a umask: that is this file's subject.
    requires(ctx, "posix-shell");
    expect(engineStartScript().split("\n")).toContain(ENGINE_START_MARKER);
    const r = start();
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    expect(r.seen).toMatchObject({ filename: join(dir, "engine.cjs"), args: ["--gentle-shell-engine", "--version"] });
  });

  it("enables the compile cache in the version's 0700 folder under umask 000, and the next start finds the engine's code there", async (ctx) => {
    // The launcher starts the engine through sh with a umask: that is this file's subject.
    requires(ctx, "posix-shell");
    const first = start("000");
    expect(first.stderr).toBe("");
    // No variable is set: Pi and every other child keep the user's own compile cache settings.
    expect(first.seen!.env).toBeNull();
    expect(await mode(cacheDir())).toBe(0o700);
    // Node wrote the engine's compiled code at exit (one folder per Node version, one file per script).
    const [byNode] = await fs.readdir(cacheDir());
    expect(byNode).toMatch(/^v24\.21\.0-/);
    expect(first.seen!.cache).toBe(join(cacheDir(), byNode!));
    const entries = await fs.readdir(join(cacheDir(), byNode!));
    expect(entries.length).toBeGreaterThanOrEqual(1);
    const second = start("000");
    expect(second.status).toBe(0);
    expect(second.seen!.cache).toBe(join(cacheDir(), byNode!));
    expect(await fs.readdir(join(cacheDir(), byNode!))).toEqual(entries);
  });

  it("keeps what Node writes in the cache to this user under umask 002 and 000: its folder 0700, the files 0600", async (ctx) => {
    requires(ctx, "posix-shell", "posix-modes");
    for (const umask of ["002", "000"]) {
      await fs.rm(cacheDir(), { recursive: true, force: true });
      const r = start(umask);
      expect(r.stderr).toBe("");
      const [byNode] = await fs.readdir(cacheDir());
      expect(await mode(join(cacheDir(), byNode!)), `umask ${umask}`).toBe(0o700);
      const files = await fs.readdir(join(cacheDir(), byNode!));
      expect(files.length).toBeGreaterThanOrEqual(1);
      for (const file of files) expect(await mode(join(cacheDir(), byNode!, file)), `umask ${umask}: ${file}`).toBe(0o600);
    }
  });

  it("leaves a NODE_COMPILE_CACHE of the user's in charge", async (ctx) => {
    // The launcher starts the engine through sh with a umask: that is this file's subject.
    requires(ctx, "posix-shell");
    const users = join(root, "users-cache");
    const r = start("022", { NODE_COMPILE_CACHE: users });
    expect(r.stderr).toBe("");
    expect(r.seen!.cache?.startsWith(`${users}/v24.21.0-`)).toBe(true);
    expect(await fs.readdir(cacheDir())).toEqual([]);
  });

  it("puts a group- or other-readable folder of ours back to 0700", async (ctx) => {
    // The launcher starts the engine through sh with a umask: that is this file's subject.
    requires(ctx, "posix-shell");
    await fs.mkdir(cacheDir(), { mode: 0o755 });
    await fs.chmod(cacheDir(), 0o777);
    expect(start().seen!.cache?.startsWith(`${cacheDir()}/v24.21.0-`)).toBe(true);
    expect(await mode(cacheDir())).toBe(0o700);
  });

  it("never goes through a link, and a file at the folder's place only means no cache", async (ctx) => {
    // The launcher starts the engine through sh with a umask: that is this file's subject.
    requires(ctx, "posix-shell");
    const elsewhere = join(root, "elsewhere");
    await fs.mkdir(elsewhere, { mode: 0o777 });
    await fs.chmod(elsewhere, 0o777);
    await fs.symlink(elsewhere, cacheDir());
    const linked = start();
    expect(linked.stderr).toBe("");
    expect(linked.status).toBe(0);
    expect(linked.seen!.cache).toBeNull();
    expect(await fs.readdir(elsewhere)).toEqual([]);
    expect(await mode(elsewhere)).toBe(0o777);

    await fs.rm(cacheDir());
    await fs.writeFile(cacheDir(), "not a folder");
    const file = start();
    expect(file.stderr).toBe("");
    expect(file.status).toBe(0);
    expect(file.seen!.cache).toBeNull();
    expect(await fs.readFile(cacheDir(), "utf8")).toBe("not a folder");
  });
});

describe("the launch part at the engine's head", () => {
  // Two stand-in bundles as esbuild writes them: each says which one ran, and with which file name.
  const engine = `"use strict";\nprocess.stdout.write("engine:" + require("node:path").basename(__filename) + ";");\n`;
  const launch = `"use strict";\nvar x = 1;\nprocess.stdout.write("launch:" + require("node:path").basename(__filename) + ";");\n`;
  const run = (file: string) => spawnSync(node ?? process.execPath, [file], { encoding: "utf8" });

  it("is joined strict and whole, and cut out again byte for byte", () => {
    const joined = engineWithLaunchPart(engine, launch);
    expect(joined.startsWith(`"use strict";\n${LAUNCH_PART_BEGIN}\n`)).toBe(true);
    expect(joined.match(/"use strict"/g)).toHaveLength(1);
    const part = launchPartOf(joined)!;
    expect(part.toString("utf8").endsWith(`${LAUNCH_PART_END}\n`)).toBe(true);
    expect(joined.startsWith(part.toString("utf8"))).toBe(true);
    expect(joined.slice(part.length)).toBe(engine.slice('"use strict";\n'.length));
    // From a Buffer (the downloaded asset) the same bytes.
    expect(launchPartOf(Buffer.from(joined))!.equals(part)).toBe(true);
  });

  it("runs only as launch.cjs: as engine.cjs the engine alone runs", async () => {
    const joined = engineWithLaunchPart(engine, launch);
    await fs.writeFile(join(dir, "engine.cjs"), joined);
    await fs.writeFile(join(dir, "launch.cjs"), launchPartOf(joined)!);
    expect(run(join(dir, "engine.cjs")).stdout).toBe("engine:engine.cjs;");
    expect(run(join(dir, "launch.cjs")).stdout).toBe("launch:launch.cjs;");
  });

  it("is not found in an engine without that head, or with its head changed, or without its end", () => {
    expect(launchPartOf(engine)).toBeNull();
    const joined = engineWithLaunchPart(engine, launch);
    expect(launchPartOf(joined.replace("run only as launch.cjs", "run as launch.cjs"))).toBeNull();
    expect(launchPartOf(joined.replace(`\n${LAUNCH_PART_END}\n`, "\n"))).toBeNull();
    expect(launchPartOf("")).toBeNull();
  });

  it("refuses a launch bundle that holds its own end, which would cut the part short", () => {
    const sneaky = `${launch}})();\n${LAUNCH_PART_END}\nprocess.exit(3);\n`;
    expect(() => engineWithLaunchPart(engine, sneaky)).toThrow(/holds its own end/);
  });

  it("the start file runs launch.cjs when the version has one", async (ctx) => {
    requires(ctx, "posix-shell");
    await fs.writeFile(
      join(dir, "launch.cjs"),
      `process.stdout.write(JSON.stringify({ filename: __filename, args: process.argv.slice(2), cache: null, env: null }));\n`,
    );
    const r = start();
    expect(r.stderr).toBe("");
    expect(r.seen).toMatchObject({ filename: join(dir, "launch.cjs"), args: ["--gentle-shell-engine", "--version"] });
  });
});
