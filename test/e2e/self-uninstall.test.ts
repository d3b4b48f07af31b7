/**
 * gentle-shell self-uninstall on a real install: the PATH entry first, then
 * what the install wrote; profiles byte-identical; shared state kept unless
 * asked; what is not ours kept and named.
 */
import { describe, expect, it } from "vitest";
import { existsSync, promises as fs } from "node:fs";
import { join } from "pathe";
import { requires, setImmutable } from "../support/capabilities";
import { fixtures } from "../support/context";
import { homeEnv } from "../support/fixtures";
import { installed as installedCopy, type Installed } from "../support/installed";
import { runCommand } from "../support/proc";
import { Terminal } from "../support/tmux";
import { treeSnapshot } from "../support/tree";

const f = fixtures();

/** A copy of the run's shared install (test/support/installed.ts), with a profile of the user's in place first. */
const installed = (profile?: { name: string; text: string }): Promise<Installed> =>
  installedCopy(f, profile ? { files: { [profile.name]: profile.text } } : {});

/** Everything in the scratch folder but the prefix and the PATH file (checked on its own). */
function outside(root: string, home: string) {
  return treeSnapshot(root, { skip: [join(home, ".gentle-shell"), join(home, ".bashrc")] });
}

function uninstall(home: string, gs: string, args: string[]) {
  return runCommand(gs, ["self-uninstall", ...args], { env: homeEnv(home), cwd: home });
}

const ASKED = "Remove Gentle Shell? [y/N]";
const ASKED_SHARED = "Also remove the Gentle Shell home (~/.gentle-shell/agent";

/**
 * self-uninstall in a real terminal (tmux), answered by `answer` once it asks; a shell around it
 * prints its exit status. The last screen.
 */
async function uninstallInTerminal(home: string, gs: string, answer: (t: Terminal) => Promise<void>): Promise<string> {
  const t = await Terminal.open({
    command: ["sh", "-c", '"$0" self-uninstall; echo "self-uninstall exited with $?"', gs],
    cwd: home,
    env: homeEnv(home, { TERM: "xterm-256color" }),
    columns: 200,
    rows: 50,
    keepOnExit: true,
  });
  try {
    await t.waitFor((s) => s.includes(ASKED), "the question");
    await answer(t);
    return await t.waitFor((s) => /self-uninstall exited with \d+/.test(s), "self-uninstall to exit");
  } finally {
    await t.close();
  }
}

describe.concurrent("self-uninstall", () => {
  it("--dry-run prints the plan and removes nothing", async () => {
    const { home, gs } = await installed();
    const r = await uninstall(home, gs, ["--dry-run"]);
    // 4: nothing was changed (src/core/errors.ts EXIT.unchanged).
    expect(r.code).toBe(4);
    expect(r.stdout).toContain("PATH: the marked line in ~/.bashrc");
    expect(r.stdout).toContain("  - ~/.gentle-shell/runtime");
    expect(r.stdout).toContain("Dry run: nothing was removed.");
    expect(existsSync(join(home, ".gentle-shell", "runtime"))).toBe(true);
    expect(await fs.readFile(join(home, ".bashrc"), "utf8")).toMatch(/# gentle-shell bundled install/);
  });

  it("without a terminal and without --yes removes nothing", async () => {
    const { home, gs } = await installed();
    const r = await uninstall(home, gs, []);
    expect(r.code).toBe(4);
    expect(r.stdout).toContain("No answer: nothing was removed.");
    expect(existsSync(join(home, ".gentle-shell", "bin", "gentle-shell"))).toBe(true);
  });

  it("restores the profile byte for byte, removes what the install wrote and keeps the agent home", async () => {
    const text = "# my bashrc\nalias ll='ls -l'"; // no trailing newline
    const { home, gs, root } = await installed({ name: ".bashrc", text });
    await fs.writeFile(join(home, ".gentle-shell", "agent", "notes.md"), "my sessions\n");
    // Setup placed Pi's own fd and rg in the agent home; the user keeps a tool of their own beside them.
    const agentBin = join(home, ".gentle-shell", "agent", "bin");
    expect((await fs.readdir(agentBin)).sort()).toEqual([".gentle-shell-fd", ".gentle-shell-rg", "fd", "rg"]);
    await fs.writeFile(join(agentBin, "mytool"), "mine\n");
    const before = await outside(root, home);
    const r = await uninstall(home, gs, ["--yes"]);
    expect(await outside(root, home)).toEqual(before);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain("✔ PATH: removed the marked line in ~/.bashrc");
    expect(await fs.readFile(join(home, ".bashrc"), "utf8")).toBe(text);
    expect((await fs.readdir(join(home, ".gentle-shell"))).sort()).toEqual(["agent"]);
    expect(await fs.readFile(join(home, ".gentle-shell", "agent", "notes.md"), "utf8")).toBe("my sessions\n");
    // Only our marked fd and rg went; the user's tool, and so bin/, stay.
    expect(await fs.readdir(agentBin)).toEqual(["mytool"]);
    expect(r.stdout).toContain("~/.gentle-shell still holds agent, so it was kept.");
    expect(await fs.readFile(join(home, ".npmrc"), "utf8")).toBe(`registry=${f.registryUrl}\n`);
  });

  it("--include-shared removes the whole prefix and the .bashrc it created", async () => {
    const { home, gs } = await installed();
    const r = await uninstall(home, gs, ["--yes", "--include-shared"]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(existsSync(join(home, ".gentle-shell"))).toBe(false);
    expect(existsSync(join(home, ".bashrc"))).toBe(false);
    expect((await fs.readdir(home)).sort()).toEqual([".npmrc"]);
  });

  it("keeps and names what is not ours, and then keeps the prefix", async () => {
    const { home, gs, root } = await installed();
    const elsewhere = join(home, "elsewhere");
    await fs.mkdir(elsewhere);
    await fs.writeFile(join(elsewhere, "keep.txt"), "keep\n");
    // A link where a folder of ours would be, and a file the install did not write.
    await fs.rm(join(home, ".gentle-shell", "tmp"), { recursive: true, force: true });
    await fs.symlink(elsewhere, join(home, ".gentle-shell", "tmp"));
    await fs.writeFile(join(home, ".gentle-shell", "mine.txt"), "mine\n");
    const before = await outside(root, home);
    const r = await uninstall(home, gs, ["--yes", "--include-shared"]);
    expect(await outside(root, home)).toEqual(before);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain("! kept: ~/.gentle-shell/tmp (it is a link, which is never followed)");
    expect((await fs.readdir(join(home, ".gentle-shell"))).sort()).toEqual(["mine.txt", "tmp"]);
    expect(await fs.readFile(join(elsewhere, "keep.txt"), "utf8")).toBe("keep\n");
    expect(r.stdout).toContain("~/.gentle-shell still holds mine.txt, tmp, so it was kept.");
  });

  it("keeps a PATH line the user edited and names it", async () => {
    const { home, gs } = await installed();
    const bashrc = join(home, ".bashrc");
    const edited = (await fs.readFile(bashrc, "utf8")).replace("$PATH", "$PATH:/opt/bin");
    await fs.writeFile(bashrc, edited);
    const r = await uninstall(home, gs, ["--yes"]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(await fs.readFile(bashrc, "utf8")).toBe(edited);
    expect(r.stdout).toMatch(/~\/\.bashrc still holds/);
  });

  it("without a valid receipt names the PATH entry to remove by hand once, with the plan, and leaves the profile as it is", async () => {
    const { home, gs } = await installed();
    const bashrc = join(home, ".bashrc");
    const profile = await fs.readFile(bashrc, "utf8");
    await fs.writeFile(join(home, ".gentle-shell", "path-entry.json"), "not json\n", { mode: 0o600 });
    const r = await uninstall(home, gs, ["--yes"]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const manual = "path-entry.json cannot be used (path-entry.json is not JSON); remove any gentle-shell PATH line or link by hand";
    const lines = (r.stdout + r.stderr).split("\n");
    expect(lines.filter((l) => l.includes("by hand"))).toEqual([manual]);
    expect(lines.indexOf(manual)).toBeLessThan(lines.findIndex((l) => l.startsWith("✔ removed")));
    expect(await fs.readFile(bashrc, "utf8")).toBe(profile);
  });

  it("a PATH entry that cannot be removed stops it before anything else is removed", async (ctx) => {
    requires(ctx, "immutable-files");
    const { home, gs, root } = await installed();
    const before = await treeSnapshot(root);
    // The profile holding our line cannot be written.
    const bashrc = join(home, ".bashrc");
    expect(setImmutable(bashrc, true)).toBe(true);
    try {
      const r = await uninstall(home, gs, ["--yes", "--include-shared"]);
      expect(r.code, r.stdout + r.stderr).toBe(1);
      expect(r.stderr).toMatch(/^gentle-shell: the PATH entry could not be removed \(.*EPERM.*\); nothing else was removed\.\n$/);
      expect(r.stdout).not.toContain("✔");
    } finally {
      setImmutable(bashrc, false);
    }
    expect(await treeSnapshot(root)).toEqual(before);
  });

  it("on a terminal: yes removes it, and the Gentle Shell home question defaults to No", async () => {
    const { home, gs } = await installed();
    await fs.writeFile(join(home, ".gentle-shell", "agent", "notes.md"), "my sessions\n");
    const screen = await uninstallInTerminal(home, gs, async (t) => {
      await t.type("y");
      await t.waitFor((s) => s.includes(ASKED_SHARED), "the Gentle Shell home question");
      // Enter alone: the default.
      await t.keys("Enter");
    });
    expect(screen).toContain("self-uninstall exited with 0");
    expect(screen).toContain("✔ PATH: removed the marked line in ~/.bashrc");
    expect(screen).toContain("Gentle Shell is uninstalled.");
    expect((await fs.readdir(join(home, ".gentle-shell"))).sort()).toEqual(["agent"]);
    expect(await fs.readFile(join(home, ".gentle-shell", "agent", "notes.md"), "utf8")).toBe("my sessions\n");
  });

  it("on a terminal: yes to the Gentle Shell home question removes it too", async () => {
    const { home, gs } = await installed();
    const screen = await uninstallInTerminal(home, gs, async (t) => {
      await t.type("y");
      await t.waitFor((s) => s.includes(ASKED_SHARED), "the Gentle Shell home question");
      await t.type("y");
    });
    expect(screen).toContain("self-uninstall exited with 0");
    expect(existsSync(join(home, ".gentle-shell"))).toBe(false);
    expect((await fs.readdir(home)).sort()).toEqual([".npmrc"]);
  });

  it("on a terminal: Ctrl+C at either question exits 130 and removes nothing", async () => {
    const { home, gs, root } = await installed();
    const before = await treeSnapshot(root);
    const first = await uninstallInTerminal(home, gs, (t) => t.keys("C-c"));
    expect(first).toContain("self-uninstall exited with 130");
    expect(await treeSnapshot(root)).toEqual(before);
    const second = await uninstallInTerminal(home, gs, async (t) => {
      await t.type("y");
      await t.waitFor((s) => s.includes(ASKED_SHARED), "the Gentle Shell home question");
      await t.keys("C-c");
    });
    expect(second).toContain("self-uninstall exited with 130");
    expect(await treeSnapshot(root)).toEqual(before);
  });

  it("refuses a prefix reached through a link, and removes nothing anywhere", async () => {
    const { home, root } = await installed();
    const moved = join(home, "..", "moved-prefix");
    await fs.rename(join(home, ".gentle-shell"), moved);
    await fs.symlink(moved, join(home, ".gentle-shell"));
    const before = await treeSnapshot(root);
    const r = await uninstall(home, join(moved, "bin", "gentle-shell"), ["--yes"]);
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toBe(
      "gentle-shell: self-uninstall removes only a bundled install in ~/.gentle-shell: ~/.gentle-shell is not a real folder (a link or missing). Nothing was removed.",
    );
    expect(await treeSnapshot(root)).toEqual(before);
  });
});
