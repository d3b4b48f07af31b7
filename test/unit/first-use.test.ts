/**
 * First-use setup's decisions (src/engine/first-use.ts) and its marker
 * (src/installed/setup-marker.ts): which launches may run it, and that the
 * marker is claimed once, with the spec's modes, and never followed
 * through a link.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { mkdtempSync, promises as fs } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "pathe";
import { prefixLayout, type Layout } from "../../src/core/layout";
import { productionPins } from "../../src/pins/production";
import { SHELL_COMMANDS } from "../../src/core/shell-commands";
import { classifyLaunch, PI_SUBCOMMANDS } from "../../src/core/pi-launch";
import { has, requires } from "../support/capabilities";
import { claimFirstUse, recordSetup, setupHasRun, setupMarkerPath } from "../../src/installed/setup-marker";

/** First use for the launch `args`, `env` and the terminal classify as (PiLaunch.firstUse, firstUseApplies). */
const applies = (args: string[], env: Record<string, string>, terminal: boolean) => classifyLaunch(args, env, terminal).firstUse;

describe("firstUseApplies", () => {
  it("never for a command of the one table of Shell's commands, whatever Pi would make of its words", () => {
    // Each command's words alone are a prompt to Pi (an interactive session), so only the table keeps them out.
    for (const { name } of SHELL_COMMANDS) {
      const args = name.split(" ");
      expect(classifyLaunch(args, {}).startsInteractive || PI_SUBCOMMANDS.has(args[0]!), name).toBe(true);
      expect(applies(args, {}, true), name).toBe(false);
    }
    // A word that only begins a command's name is Pi's prompt, as the engine hands it to Pi.
    expect(applies(["memory"], {}, true)).toBe(true);
  });

  it("runs for an interactive launch in a terminal", () => {
    expect(applies([], {}, true)).toBe(true);
    expect(applies(["--continue"], { PI_OFFLINE: "0" }, true)).toBe(true);
    expect(applies(["fix the build"], {}, true)).toBe(true);
  });

  it("never without a terminal, inside a Gentle Shell session, offline, for Shell commands or non-interactive Pi", () => {
    expect(applies([], {}, false)).toBe(false);
    expect(applies([], { GENTLE_SHELL_PREFIX: "/h/.gentle-shell" }, true)).toBe(false);
    expect(applies([], { PI_OFFLINE: "1" }, true)).toBe(false);
    expect(applies(["--offline"], {}, true)).toBe(false);
    // Pi is offline with an --offline anywhere among its words, after `--` too, and so is first use.
    expect(applies(["--", "--offline"], {}, true)).toBe(false);
    expect(applies(["--", "--offline"], { PI_OFFLINE: "on" }, true)).toBe(false);
    expect(applies([], { PI_OFFLINE: "on" }, true)).toBe(true);
    for (const args of [
      ["setup"],
      ["status"],
      ["status", "--json"],
      ["upgrade"],
      ["update"],
      ["self-uninstall"],
      ["memory", "migrate"],
      ["install"],
      ["list"],
    ]) {
      expect(applies(args, {}, true), JSON.stringify(args)).toBe(false);
    }
    for (const args of [["-p", "hi"], ["--mode", "rpc"], ["--version"], ["--help"]]) {
      expect(applies(args, {}, true), JSON.stringify(args)).toBe(false);
    }
  });
});

describe("the setup marker", () => {
  let root: string;
  let layout: Layout;
  beforeEach(async () => {
    root = mkdtempSync(join(tmpdir(), "gss-first-use-"));
    layout = prefixLayout({ home: root, platform: "linux", pins: productionPins });
    await fs.mkdir(layout.prefix, { mode: 0o700 });
  });
  afterEach(async () => {
    await fs.rm(root, { recursive: true, force: true });
  });

  it("is claimed once, in config/ (0700) as a 0600 file, and a record replaces it", async () => {
    expect(await setupHasRun(layout)).toBe(false);
    expect(await claimFirstUse(layout, "4.1.0-1.6.0")).toBe(true);
    expect(await claimFirstUse(layout, "4.1.0-1.6.0")).toBe(false);
    expect(await setupHasRun(layout)).toBe(true);
    expect(setupMarkerPath(layout)).toBe(join(layout.prefix, "config", "setup.json"));
    expect((await fs.lstat(layout.config)).isDirectory()).toBe(true);
    if (has("posix-modes")) expect((await fs.stat(layout.config)).mode & 0o777).toBe(0o700);
    if (has("posix-modes")) expect((await fs.stat(setupMarkerPath(layout))).mode & 0o777).toBe(0o600);
    expect(JSON.parse(await fs.readFile(setupMarkerPath(layout), "utf8"))).toMatchObject({ schema: 1, status: "started", by: "first-use" });
    await recordSetup(layout, { status: "failed", by: "first-use", version: "4.1.0-1.6.0", reason: "offline" });
    expect(JSON.parse(await fs.readFile(setupMarkerPath(layout), "utf8"))).toMatchObject({ status: "failed", reason: "offline" });
    if (has("posix-modes")) expect((await fs.stat(setupMarkerPath(layout))).mode & 0o777).toBe(0o600);
  });

  it("is never claimed through a link, which counts as setup having run", async (ctx) => {
    requires(ctx, "symlinks");
    await fs.mkdir(layout.config, { mode: 0o700 });
    await fs.symlink(join(root, "elsewhere"), setupMarkerPath(layout));
    expect(await setupHasRun(layout)).toBe(true);
    expect(await claimFirstUse(layout, "x")).toBe(false);
    await expect(fs.lstat(join(root, "elsewhere"))).rejects.toThrow();
  });

  it("refuses a config/ that is a link", async (ctx) => {
    requires(ctx, "symlinks");
    await fs.mkdir(join(root, "theirs"));
    await fs.symlink(join(root, "theirs"), layout.config);
    await expect(claimFirstUse(layout, "x")).rejects.toThrow(/is not a folder of Gentle Shell's \(a link\)/);
    expect(await fs.readdir(join(root, "theirs"))).toEqual([]);
  });
});
