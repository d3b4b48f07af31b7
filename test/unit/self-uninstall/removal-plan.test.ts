/**
 * The self-uninstall plan on a laid-out prefix (spec: "Self-uninstall",
 * Ownership, Removed, Shared): each entry lstat-checked, links kept and
 * named, protected folders held by name and by real path, what the launcher
 * needs last.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createHash } from "node:crypto";
import { mkdtempSync, promises as fs } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "pathe";
import { prefixLayout, type Layout } from "../../../src/core/layout";
import { productionPins } from "../../../src/pins/production";
import { forbiddenRemoval, protectedFolders, uninstallPlan } from "../../../src/commands/self-uninstall/removal-plan";
import { ensureLauncher } from "../../../src/install/launcher";
import { WINDOWS_PREFIX_MARKER, WINDOWS_PREFIX_MARKER_TEXT } from "../../../src/install/windows-private/rule";
import { has, requires } from "../../support/capabilities";

let root: string;
let home: string;
let layout: Layout;
beforeEach(async () => {
  root = mkdtempSync(join(tmpdir(), "gss-uninstall-plan-"));
  home = join(root, "home");
  layout = prefixLayout({ home, platform: "linux", pins: productionPins });
  for (const dir of ["agent", "runtime", "versions", "pnpm", "npm", "gentle-ai", "config", "tmp"])
    await fs.mkdir(join(layout.prefix, dir), { recursive: true });
  await fs.writeFile(layout.history, "4.1.0-1.6.0\n");
  // current is a link on POSIX; a machine that cannot make one lays the prefix out without it.
  if (has("symlinks")) await fs.symlink("versions/4.1.0-1.6.0", layout.current);
  await ensureLauncher(layout);
});
afterEach(async () => {
  await fs.rm(root, { recursive: true, force: true });
});

const rel = (paths: { path: string }[]) => paths.map((p) => p.path.slice(layout.prefix.length + 1));

describe("uninstallPlan", () => {
  it("removes what the install wrote, with what the launcher needs (versions, current, runtime, bin) last", async () => {
    const plan = await uninstallPlan(layout, { HOME: home }, false);
    const launchGroup = ["versions", ...(has("symlinks") ? ["current"] : []), "runtime", "bin/engram-guard", "bin/gentle-shell", "bin"];
    expect(rel(plan.remove)).toEqual(["tmp", "pnpm", "npm", "gentle-ai", "config", "versions.history", ...launchGroup]);
    expect(plan.remove.filter((r) => r.last).map((r) => r.path)).toEqual(plan.remove.slice(-launchGroup.length).map((r) => r.path));
    expect(rel(plan.shared)).toEqual(["agent"]);
    expect(plan.keep).toEqual([]);
  });

  it("with config/config.json kept, removes the rest of config/ entry by entry, files and folders alike", async () => {
    await fs.writeFile(join(layout.config, "config.json"), "{}\n");
    await fs.writeFile(join(layout.config, "install-source"), "http://mirror.test\n");
    await fs.mkdir(join(layout.config, "gentle-ai"));
    const plan = await uninstallPlan(layout, { HOME: home }, false);
    expect(rel(plan.remove).filter((p) => p.startsWith("config"))).toEqual(["config/gentle-ai", "config/install-source"]);
    expect(rel(plan.shared)).toEqual(["config/config.json", "agent"]);
    // With the shared entries, config/ goes whole, so the prefix can go too.
    const all = await uninstallPlan(layout, { HOME: home }, true);
    expect(rel(all.remove)).toContain("config");
    expect(rel(all.remove).some((p) => p.startsWith("config/"))).toBe(false);
    expect(all.shared).toEqual([]);
  });

  it("while an interrupted memory migration's marker exists, keeps it and the provenance record, and says to roll back first, with or without the shared entries", async () => {
    const marker = join(layout.config, "engram-migration.json");
    const provenance = join(layout.config, "engram-provenance.json");
    await fs.writeFile(marker, '{"source":"~/.engram"}\n');
    await fs.writeFile(provenance, '{"core":"sha256"}\n');
    await fs.writeFile(join(layout.config, "config.json"), "{}\n");
    await fs.writeFile(join(layout.config, "install-source"), "http://mirror.test\n");
    for (const shared of [false, true]) {
      const plan = await uninstallPlan(layout, { HOME: home }, shared);
      expect(plan.keep.map((k) => k.path)).toEqual([marker, provenance]);
      for (const k of plan.keep)
        expect(k.why).toMatch(/interrupted Engram memory migration.*roll that migration back first, as gentle-shell memory migrate explains/);
      const planned = [...plan.remove, ...plan.shared].map((r) => r.path);
      expect(planned).not.toContain(layout.config);
      expect(planned).not.toContain(marker);
      expect(planned).not.toContain(provenance);
      expect(planned).toContain(join(layout.config, "install-source"));
      // config.json is the shared entries' as ever.
      expect(rel(shared ? plan.remove : plan.shared)).toContain("config/config.json");
    }
    // Anything at the marker's path counts, a folder too; without it the provenance record goes with config/.
    await fs.rm(marker);
    await fs.mkdir(marker);
    expect((await uninstallPlan(layout, { HOME: home }, true)).keep.map((k) => k.path)).toEqual([marker, provenance]);
  });

  it("keeps and names a config/ that is a link, and reads nothing through it", async (ctx) => {
    requires(ctx, "symlinks");
    const dotfiles = join(root, "dotfiles");
    await fs.mkdir(join(dotfiles, ".git"), { recursive: true });
    await fs.writeFile(join(dotfiles, "config.json"), "{}\n");
    await fs.rm(layout.config, { recursive: true });
    await fs.symlink(dotfiles, layout.config);
    for (const shared of [false, true]) {
      const plan = await uninstallPlan(layout, { HOME: home }, shared);
      expect(plan.keep).toContainEqual({ path: layout.config, why: "it is a link, which is never followed" });
      expect([...plan.remove, ...plan.shared].some((r) => r.path.startsWith(layout.config))).toBe(false);
    }
  });

  it("keeps a file in bin/ without our marker, and bin/ goes only when empty", async () => {
    await fs.writeFile(join(layout.bin, "my-tool"), "#!/bin/sh\n");
    const plan = await uninstallPlan(layout, { HOME: home }, false);
    expect(plan.keep).toContainEqual({ path: join(layout.bin, "my-tool"), why: "it was not written by gentle-shell-setup" });
    expect(plan.remove.find((r) => r.path === layout.bin)?.emptyOnly).toBe(true);
  });

  it("keeps gentle-ai/ when ~/.engram is a link into it", async (ctx) => {
    requires(ctx, "symlinks");
    await fs.mkdir(join(layout.gentleAi, "memory"));
    await fs.symlink(join(layout.gentleAi, "memory"), join(home, ".engram"));
    const plan = await uninstallPlan(layout, { HOME: home }, true);
    expect(plan.keep).toContainEqual({ path: layout.gentleAi, why: "it lies in a folder that is never removed" });
    expect(rel(plan.remove)).not.toContain("gentle-ai");
  });
});

describe("uninstallPlan and the .gentle-shell-bundle marker off Windows", () => {
  it("a marker of ours (a plain file with the exact text) goes at once, after everything else", async () => {
    await fs.writeFile(join(layout.prefix, WINDOWS_PREFIX_MARKER), WINDOWS_PREFIX_MARKER_TEXT);
    const plan = await uninstallPlan(layout, { HOME: home }, false);
    expect(rel(plan.remove).at(-1)).toBe(WINDOWS_PREFIX_MARKER);
    expect(plan.remove.at(-1)?.last).toBe(true);
    expect(plan.windows).toBeNull();
  });

  it("a marker that is a link, even to a file with the exact text, is not planned", async (ctx) => {
    requires(ctx, "symlinks");
    const elsewhere = join(root, "marker-elsewhere");
    await fs.writeFile(elsewhere, WINDOWS_PREFIX_MARKER_TEXT);
    await fs.symlink(elsewhere, join(layout.prefix, WINDOWS_PREFIX_MARKER));
    expect(rel((await uninstallPlan(layout, { HOME: home }, false)).remove)).not.toContain(WINDOWS_PREFIX_MARKER);
  });

  it("a marker that holds other text is not planned", async () => {
    await fs.writeFile(join(layout.prefix, WINDOWS_PREFIX_MARKER), "something else\n");
    expect(rel((await uninstallPlan(layout, { HOME: home }, false)).remove)).not.toContain(WINDOWS_PREFIX_MARKER);
  });
});

describe("uninstallPlan on a win32 layout", () => {
  it("runtime/ goes entry by entry around the running node.exe; node.exe, the launcher and the marker are the delayed removal's", async () => {
    const win = prefixLayout({ home, platform: "win32", pins: productionPins, windowsPrefix: join(root, "Local", "gentle-shell") });
    await fs.mkdir(join(win.nodeDir, "node_modules", "npm"), { recursive: true });
    await fs.writeFile(win.node, "node\n");
    await fs.mkdir(win.pnpmDir, { recursive: true });
    // A link in runtime/ where the machine can make one.
    const link = has("symlinks");
    if (link) await fs.symlink(join(root, "home"), join(win.runtime, "a-link"));
    await fs.writeFile(join(win.prefix, WINDOWS_PREFIX_MARKER), WINDOWS_PREFIX_MARKER_TEXT);
    await ensureLauncher(win);
    await fs.mkdir(win.agent, { recursive: true });
    const plan = await uninstallPlan(win, { USERPROFILE: home }, false);
    const inWin = plan.remove.map((r) => `${r.kind} ${r.path.slice(win.prefix.length + 1)}`);
    // A link in runtime/ is removed itself (never followed); runtime/ and node-<v>/ go later, when empty.
    expect(inWin).toEqual([
      ...(link ? ["link runtime/a-link"] : []),
      `folder runtime/pnpm-${productionPins.pnpm.version}`,
      `folder runtime/node-${productionPins.node.version}/node_modules`,
    ]);
    expect(plan.remove.every((r) => r.last)).toBe(true);
    expect(plan.windows).toEqual({
      launcher: { holds: "REM Generated by gentle-shell-setup: the Gentle Shell launcher. Rewritten on upgrade; do not edit." },
      marker: { path: join(win.prefix, WINDOWS_PREFIX_MARKER), holds: WINDOWS_PREFIX_MARKER_TEXT.trimEnd() },
    });
    expect(plan.shared.map((r) => r.path)).toEqual([join(home, ".gentle-shell", "agent")]);
  });
});

describe("forbiddenRemoval", () => {
  it("holds each protected folder by its real path", async (ctx) => {
    requires(ctx, "symlinks");
    await fs.mkdir(join(layout.prefix, "runtime", "inner"), { recursive: true });
    await fs.symlink(join(layout.prefix, "runtime", "inner"), join(home, ".pi"));
    const guarded = protectedFolders(layout, { HOME: home });
    expect(forbiddenRemoval(join(layout.prefix, "runtime"), guarded)).toBe(true);
    expect(forbiddenRemoval(join(layout.prefix, "pnpm"), guarded)).toBe(false);
  });

  it("holds each protected folder by its name", async () => {
    const elsewhere = join(root, "pi-home");
    await fs.mkdir(elsewhere);
    const guarded = protectedFolders(layout, { HOME: home, PI_CODING_AGENT_DIR: elsewhere });
    expect(forbiddenRemoval(join(layout.prefix, "runtime"), guarded)).toBe(false);
    expect(forbiddenRemoval(join(layout.prefix, "pnpm"), guarded)).toBe(false);
    expect(forbiddenRemoval(elsewhere, guarded)).toBe(true);
    expect(forbiddenRemoval(join(elsewhere, "x"), guarded)).toBe(true);
    // The prefix lies in the home folder, which it may; it may never be or contain it.
    expect(forbiddenRemoval(home, guarded)).toBe(true);
    expect(forbiddenRemoval(root, guarded)).toBe(true);
  });

  it("does not count the agent home as the user's Pi home when PI_CODING_AGENT_DIR names it", () => {
    const guarded = protectedFolders(layout, { HOME: home, PI_CODING_AGENT_DIR: layout.agent });
    expect(forbiddenRemoval(layout.agent, guarded)).toBe(false);
  });
});

describe("uninstallPlan and Pi's own tools in the shared agent home", () => {
  const toolText = "#!/bin/sh\necho fd\n";
  const marker = (sha256: string) => `${JSON.stringify({ schema: 1, tool: "fd", version: "10.3.0", sha256 })}\n`;
  const sha = (text: string) => createHash("sha256").update(text).digest("hex");

  it("removes only our marked fd (still with the bytes its marker records), the markers, and bin/ when then empty; keeps the user's rg", async () => {
    await fs.mkdir(layout.agentBin);
    await fs.writeFile(join(layout.agentBin, "fd"), toolText);
    await fs.writeFile(join(layout.agentBin, ".gentle-shell-fd"), marker(sha(toolText)));
    await fs.writeFile(join(layout.agentBin, "rg"), "the user's rg\n");
    const plan = await uninstallPlan(layout, { HOME: home }, false);
    const agentRemovals = rel(plan.remove).filter((p) => p.startsWith("agent"));
    expect(agentRemovals).toEqual(["agent/bin/fd", "agent/bin/.gentle-shell-fd", "agent/bin"]);
    expect(plan.remove.find((r) => r.path === layout.agentBin)?.emptyOnly).toBe(true);
    expect(rel(plan.shared)).toEqual(["agent"]);
  });

  it("keeps an fd that replaced ours (the marker alone goes), and plans nothing in the home without markers", async () => {
    await fs.mkdir(layout.agentBin);
    await fs.writeFile(join(layout.agentBin, "fd"), "the user's fd now\n");
    await fs.writeFile(join(layout.agentBin, ".gentle-shell-fd"), marker(sha(toolText)));
    expect(rel((await uninstallPlan(layout, { HOME: home }, false)).remove).filter((p) => p.startsWith("agent"))).toEqual([
      "agent/bin/.gentle-shell-fd",
      "agent/bin",
    ]);
    await fs.rm(join(layout.agentBin, ".gentle-shell-fd"));
    expect(rel((await uninstallPlan(layout, { HOME: home }, false)).remove).filter((p) => p.startsWith("agent"))).toEqual([]);
  });

  it("with the shared entries, the whole agent home goes and no tool is planned on its own", async () => {
    await fs.mkdir(layout.agentBin);
    await fs.writeFile(join(layout.agentBin, "fd"), toolText);
    await fs.writeFile(join(layout.agentBin, ".gentle-shell-fd"), marker(sha(toolText)));
    const plan = await uninstallPlan(layout, { HOME: home }, true);
    expect(rel(plan.remove).filter((p) => p.startsWith("agent"))).toEqual(["agent"]);
  });
});
