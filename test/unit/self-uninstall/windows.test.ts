/**
 * Self-uninstall on Windows' layout, on Linux (spec: "Self-uninstall",
 * Ownership, Shared, Windows): a fake win32 layout on the real file system,
 * the HKCU Path through a fake registry adapter, and a fake
 * scheduleWindowsRemoval that records the plan it is handed. Everything that
 * can go goes at once, the Path entry included; node.exe, the .cmd launcher
 * and the marker are left to the delayed removal; the agent home is the
 * real one, %USERPROFILE%\.gentle-shell\agent; the marker is read without
 * following a link.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { promises as fs } from "node:fs";
import { join } from "pathe";
import { selfUninstall } from "../../../src/commands/self-uninstall/run";
import { uninstallPlan } from "../../../src/commands/self-uninstall/removal-plan";
import type { WindowsRemoval, WindowsRemovalPlan } from "../../../src/commands/self-uninstall/windows-removal";
import { WINDOWS_PREFIX_MARKER, WINDOWS_PREFIX_MARKER_TEXT } from "../../../src/install/windows-private/rule";
import { fakeUserPath, layOut, recordingIo, scratchRoot, tree, type Laid } from "./fixture";

let laid: Laid;
beforeEach(async () => {
  laid = await layOut(scratchRoot(), "win32");
});
afterEach(async () => {
  await fs.rm(laid.root, { recursive: true, force: true });
});

const options = { dryRun: false, yes: true, includeShared: false, lockWaitMs: 1000 };
const inPrefix = (entries: WindowsRemoval[]) =>
  entries.map((e) => `${e.kind} ${e.path === laid.layout.prefix ? "<prefix>" : e.path.slice(laid.layout.prefix.length + 1)}`);
const nodeDir = () => laid.layout.nodeDir.slice(laid.layout.prefix.length + 1);

/** A scheduler that records its plan and what was left in the prefix when it was called. */
function recordingScheduler(fail?: string) {
  const calls: { prefix: string; entries: WindowsRemoval[]; left: string[]; pathThen: string }[] = [];
  return {
    calls,
    make: (state: { value: string }) => async (plan: WindowsRemovalPlan) => {
      calls.push({ prefix: plan.prefix, entries: plan.entries, left: await tree(plan.prefix), pathThen: state.value });
      if (fail) throw new Error(fail);
    },
  };
}

describe("self-uninstall on a win32 layout", () => {
  it("removes everything else at once, the Path entry first, then hands node.exe, the launcher, the marker and the folders above them to the delayed removal", async () => {
    const { layout, home } = laid;
    const userPath = fakeUserPath(layout, "C:\\Tools;%USERPROFILE%\\bin");
    const scheduler = recordingScheduler();
    const { io, lines } = recordingIo([], { registry: userPath.registry, scheduleWindowsRemoval: scheduler.make(userPath.state) });
    expect(await selfUninstall(layout, { USERPROFILE: home }, options, io)).toBe(0);

    expect(scheduler.calls).toHaveLength(1);
    const [call] = scheduler.calls;
    expect(call.prefix).toBe(layout.prefix);
    // The Path entry went before, and is back to the raw value without ours.
    expect(call.pathThen).toBe("C:\\Tools;%USERPROFILE%\\bin");
    // Only what this process cannot remove is left when the delayed removal is started.
    expect(call.left).toEqual([".gentle-shell-bundle", "bin", "bin/gentle-shell.cmd", "runtime", nodeDir(), `${nodeDir()}/node.exe`]);
    expect(inPrefix(call.entries)).toEqual([
      `file ${nodeDir()}/node.exe`,
      "file bin/gentle-shell.cmd",
      "file .gentle-shell-bundle",
      `emptyFolder ${nodeDir()}`,
      "emptyFolder runtime",
      "emptyFolder bin",
      "emptyFolder <prefix>",
    ]);
    // The agent home, where it really is on Windows, is shared and kept.
    expect(await tree(join(home, ".gentle-shell"))).toEqual(["agent"]);
    expect(lines).toContain("  - ~/AppData/Local/gentle-shell/.gentle-shell-bundle (once gentle-shell has exited)");
    expect(lines.some((l) => l.startsWith("Kept unless you agree below") && l.includes("~/.gentle-shell/agent"))).toBe(true);
    expect(lines).toContain(
      `✔ ~/AppData/Local/gentle-shell/${nodeDir()}/node.exe, ~/AppData/Local/gentle-shell/bin/gentle-shell.cmd, ~/AppData/Local/gentle-shell/.gentle-shell-bundle go once gentle-shell has exited, then ~/AppData/Local/gentle-shell`,
    );
  });

  it("the shared question covers %USERPROFILE%\\.gentle-shell\\agent, and with it that folder goes when then empty", async () => {
    const { layout, home } = laid;
    await fs.writeFile(join(layout.agent, "settings.json"), "{}\n");
    const plan = await uninstallPlan(layout, { USERPROFILE: home }, false);
    expect(plan.shared.map((r) => r.path)).toEqual([join(home, ".gentle-shell", "agent")]);
    const userPath = fakeUserPath(layout, "C:\\Tools");
    const scheduler = recordingScheduler();
    const { io, questions } = recordingIo([true, true], { registry: userPath.registry, scheduleWindowsRemoval: scheduler.make(userPath.state) });
    expect(await selfUninstall(layout, { USERPROFILE: home }, { ...options, yes: false }, io)).toBe(0);
    expect(questions[1]).toContain("~/.gentle-shell/agent");
    expect(await tree(home)).toEqual([
      "AppData",
      "AppData/Local",
      "AppData/Local/gentle-shell",
      ...scheduler.calls[0].left.map((p) => `AppData/Local/gentle-shell/${p}`),
    ]);
  });

  it("keeps the prefix (and hands it no removal) when something in it is not ours, and keeps a launcher that is not ours with the marker", async () => {
    const { layout, home } = laid;
    await fs.writeFile(join(layout.bin, "my-tool.exe"), "the user's\n");
    const userPath = fakeUserPath(layout, "C:\\Tools");
    const scheduler = recordingScheduler();
    const first = recordingIo([], { registry: userPath.registry, scheduleWindowsRemoval: scheduler.make(userPath.state) });
    expect(await selfUninstall(layout, { USERPROFILE: home }, options, first.io)).toBe(0);
    expect(inPrefix(scheduler.calls[0].entries)).not.toContain("emptyFolder <prefix>");
    expect(first.lines).toContain("~/AppData/Local/gentle-shell holds what the install did not write, so it is kept.");

    // A launcher of the user's at our path: neither it nor the marker is handed over.
    const again = await layOut(scratchRoot(), "win32");
    await fs.writeFile(again.layout.launcher, "@ECHO OFF\r\nECHO mine\r\n");
    const second = recordingScheduler();
    const p2 = fakeUserPath(again.layout, "C:\\Tools");
    const io2 = recordingIo([], { registry: p2.registry, scheduleWindowsRemoval: second.make(p2.state) });
    expect(await selfUninstall(again.layout, { USERPROFILE: again.home }, options, io2.io)).toBe(0);
    expect(inPrefix(second.calls[0].entries).filter((e) => e.startsWith("file"))).toEqual([`file ${nodeDir()}/node.exe`]);
    expect(io2.lines).toContain(`  ! kept: ${again.layout.launcher.replace(again.home, "~")} (it was not written by gentle-shell-setup)`);
    await fs.rm(again.root, { recursive: true, force: true });
  });

  it("when the delayed removal cannot be started, says what to remove by hand and exits 1; the marker stays", async () => {
    const { layout, home } = laid;
    const userPath = fakeUserPath(layout, "C:\\Tools");
    const scheduler = recordingScheduler("%SystemRoot% is not an absolute folder");
    const { io, lines } = recordingIo([], { registry: userPath.registry, scheduleWindowsRemoval: scheduler.make(userPath.state) });
    expect(await selfUninstall(layout, { USERPROFILE: home }, options, io)).toBe(1);
    expect(lines.at(-1)).toMatch(
      /^ERR gentle-shell: the removal of .*node\.exe, .*gentle-shell\.cmd, .*\.gentle-shell-bundle could not be started \(%SystemRoot% is not an absolute folder\); remove them by hand once gentle-shell has exited\.$/,
    );
    expect(await fs.readFile(join(layout.prefix, WINDOWS_PREFIX_MARKER), "utf8")).toBe(WINDOWS_PREFIX_MARKER_TEXT);
  });
});

describe("the marker is checked without following a link", () => {
  it("a marker that is a link to a file with the exact text does not make the folder ours: nothing is removed", async () => {
    const { layout, home, root } = laid;
    const elsewhere = join(root, "elsewhere-marker");
    await fs.writeFile(elsewhere, WINDOWS_PREFIX_MARKER_TEXT);
    await fs.rm(join(layout.prefix, WINDOWS_PREFIX_MARKER));
    await fs.symlink(elsewhere, join(layout.prefix, WINDOWS_PREFIX_MARKER));
    const before = await tree(layout.prefix);
    const userPath = fakeUserPath(layout, "C:\\Tools");
    const scheduler = recordingScheduler();
    const { io, lines } = recordingIo([], { registry: userPath.registry, scheduleWindowsRemoval: scheduler.make(userPath.state) });
    expect(await selfUninstall(layout, { USERPROFILE: home }, options, io)).toBe(1);
    expect(lines).toEqual([
      `ERR gentle-shell: self-uninstall removes only a bundled install in ~/.gentle-shell: ${layout.prefix} does not carry the .gentle-shell-bundle marker. Nothing was removed.`,
    ]);
    expect(await tree(layout.prefix)).toEqual(before);
    expect(userPath.state.value).toContain("gentle-shell");
    expect(scheduler.calls).toEqual([]);
  });
});
