/**
 * The update policy on the installer's paths and on Pi's package commands
 * (issue 47, item 2; src/installed/install-gate.ts, src/engine/pi-package-gate.ts):
 * under off, a first install runs, a rerun over an active version may only
 * reinstall it (pinned to it without --release, refused with another
 * --release or when the opened release is another version), migrate is
 * refused, and Pi's install and update forms are refused before Pi starts
 * (their help is not). Under on, nothing is held.
 */
import { mkdtempSync, promises as fs } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { prefixLayout } from "../../src/core/layout";
import { classifyLaunch } from "../../src/core/pi-launch";
import { SHELL_PACKAGE } from "../../src/core/release-project";
import type { PrivateInstall } from "../../src/installed/private-install";
import { installGate, migrateRefusal, releaseChange } from "../../src/installed/install-gate";
import { piPackageGate } from "../../src/engine/pi-package-gate";
import { productionPins } from "../../src/pins/production";
import { requires } from "../support/capabilities";
import { testHost } from "../support/host";

const CONFIG = "~/.gentle-shell/config/config.json";

/** A home whose prefix has `id` active (versions/<id> with its manifest), config.json saying `updates`. */
async function home(options: { id?: string; updates?: string }) {
  const dir = mkdtempSync(join(tmpdir(), "gss-install-gate-"));
  const layout = prefixLayout({ home: dir, platform: "linux", pins: productionPins });
  await fs.mkdir(layout.config, { recursive: true });
  if (options.updates) await fs.writeFile(join(layout.config, "config.json"), JSON.stringify({ updates: options.updates }));
  if (options.id) {
    await fs.mkdir(join(layout.versions, options.id), { recursive: true });
    await fs.writeFile(join(layout.versions, options.id, "package.json"), JSON.stringify({ dependencies: { [SHELL_PACKAGE]: options.id.split("-")[0] } }));
    await fs.symlink(`versions/${options.id}`, layout.current);
  }
  return { dir, layout };
}

const refusal = (command: string) => `${command} was not run: updates are off by ${CONFIG}; nothing was changed`;

describe("install and migrate under the update policy", () => {
  it("lets a first install run under off: there is nothing to update", async () => {
    const { layout } = await home({ updates: "off" });
    expect(await installGate(layout, {}, undefined)).toEqual({ kind: "free" });
    expect(await installGate(layout, {}, "4.1.0")).toEqual({ kind: "free" });
  });

  it("holds nothing under on or notify", async () => {
    for (const updates of ["on", "notify"]) {
      const { layout } = await home({ id: "4.0.0-1.6.0", updates });
      expect(await installGate(layout, {}, "4.1.0")).toEqual({ kind: "free" });
      expect(await migrateRefusal(layout, {})).toBeNull();
    }
  });

  it("under off over an active version: pinned to it without --release, refused with another, a repair with the same", async (ctx) => {
    requires(ctx, "symlinks"); // the linux layout's current is a symlink
    const { layout } = await home({ id: "4.0.0-1.6.0", updates: "off" });
    const pinned = await installGate(layout, {}, undefined);
    expect(pinned).toEqual({
      kind: "repair",
      release: "4.0.0",
      activeId: "4.0.0-1.6.0",
      line: "Updates are off, so this install reinstalls the active Gentle Shell 4.0.0 (a repair) rather than a newer release.",
      refusal: refusal("gentle-shell-setup install"),
    });
    expect(releaseChange(pinned, "4.0.0", "1.6.0")).toBeNull();
    // The release opened with another Pi would change the active version: refused.
    expect(releaseChange(pinned, "4.0.0", "1.7.0")).toBe(refusal("gentle-shell-setup install"));
    expect(await installGate(layout, {}, "4.1.0")).toEqual({ kind: "refuse", message: refusal("gentle-shell-setup install --release 4.1.0") });
    expect(await installGate(layout, {}, "4.0.0")).toMatchObject({ kind: "repair", release: "4.0.0", line: null });
    // The user's on is stronger than config.json's off; the environment's off is the one named.
    expect(await installGate(layout, { GENTLE_SHELL_UPDATES: "on" }, "4.1.0")).toEqual({ kind: "free" });
    expect(releaseChange({ kind: "free" }, "9.9.9", "9.9.9")).toBeNull();
  });

  it("refuses under off a version whose release it cannot read, rather than guess", async (ctx) => {
    requires(ctx, "symlinks"); // the linux layout's current is a symlink
    const { layout } = await home({ id: "4.0.0-1.6.0", updates: "off" });
    await fs.rm(join(layout.versions, "4.0.0-1.6.0", "package.json"));
    expect(await installGate(layout, {}, undefined)).toEqual({ kind: "refuse", message: refusal("gentle-shell-setup install") });
  });

  it("refuses migrate under off, with or without a bundled install", async () => {
    for (const id of [undefined, "4.0.0-1.6.0"]) {
      const { layout } = await home({ id, updates: "off" });
      expect(await migrateRefusal(layout, {})).toBe(refusal("gentle-shell-setup migrate"));
    }
  });
});

describe("Pi's package commands under the update policy", () => {
  const gate = async (args: string[], updates = "off") => {
    const { dir, layout } = await home({ id: "4.0.0-1.6.0", updates });
    const host = testHost({ home: dir });
    const install = { layout, id: "4.0.0-1.6.0", shell: "4.0.0", pi: "1.6.0" } as PrivateInstall;
    // As the engine asks: only a launch that names a package command reaches the gate.
    const command = classifyLaunch(args, {}).packageCommand;
    return { code: command === null ? null : await piPackageGate(install, command, host), err: host.lines.err };
  };

  it.each([
    [["update", "--extensions"], "gentle-shell update --extensions"],
    [["update", "npm:some-package"], "gentle-shell update"],
    [["install", "npm:some-package@1.0.0"], "gentle-shell install"],
    [["install", "git:https://token@example.invalid/x", "--local"], "gentle-shell install --local"],
  ])("refuses %j under off in one sentence, exit 4, without repeating a source", async (args, command) => {
    expect(await gate(args)).toEqual({ code: 4, err: [`gentle-shell: ${refusal(command)}.`] });
  });

  it.each([[["update", "--help"]], [["install", "-h"]], [["list"]], [["remove", "npm:x"]], [["config"]], [[]], [["-p", "hello"]]])(
    "hands %j on to Pi under off (help, and what installs nothing)",
    async (args) => {
      expect(await gate(args)).toEqual({ code: null, err: [] });
    },
  );

  it("hands install and update on under on", async () => {
    expect(await gate(["update", "--extensions"], "on")).toEqual({ code: null, err: [] });
    expect(await gate(["install", "npm:x"], "notify")).toEqual({ code: null, err: [] });
  });
});
