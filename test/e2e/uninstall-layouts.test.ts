/**
 * self-uninstall under the layouts real users have (issue 8): dotfiles
 * managers that link config folders, a linked ~/.engram, a symlinked HOME, a
 * second terminal running an upgrade, tools of the user's in bin/, an entry
 * that cannot be removed. Every test pictures everything outside the prefix
 * before and after and requires it byte-identical (the PATH file, which the
 * receipt names, is checked on its own).
 */
import { describe, expect, it } from "vitest";
import { existsSync, promises as fs } from "node:fs";
import { join } from "pathe";
import { fixtures } from "../support/context";
import { runCommand } from "../support/proc";
import { installed, type Installed } from "../support/installed";
import { gs } from "../support/launch";
import { treeSnapshot } from "../support/tree";

const f = fixtures();
const [older] = [f.releases[0]!];

/** Everything under the scratch root but the prefix and the PATH file the receipt names. */
async function outside(i: Installed): Promise<Awaited<ReturnType<typeof treeSnapshot>>> {
  const real = await fs.realpath(i.home);
  return treeSnapshot(i.root, { skip: [join(real, ".gentle-shell"), join(real, ".bashrc")] });
}

function uninstall(i: Installed, args: string[]) {
  return gs(i, ["self-uninstall", ...args]);
}

describe.concurrent("self-uninstall under real-world layouts", () => {
  it("keeps a config/ that is a link (a dotfiles folder), and deletes nothing through it, even with --include-shared", async () => {
    const i = await installed(f);
    const dotfiles = join(i.root, "dotfiles", "gentle-shell-config");
    await fs.mkdir(join(dotfiles, ".git"), { recursive: true });
    await fs.mkdir(join(dotfiles, "sub"), { recursive: true });
    for (const name of await fs.readdir(join(i.prefix, "config"))) await fs.rename(join(i.prefix, "config", name), join(dotfiles, name));
    await fs.writeFile(join(dotfiles, ".git", "HEAD"), "ref: refs/heads/main\n");
    await fs.writeFile(join(dotfiles, "sub", "notes.md"), "mine\n");
    await fs.writeFile(join(dotfiles, "config.json"), '{"theme":"rose"}\n');
    await fs.rm(join(i.prefix, "config"), { recursive: true });
    await fs.symlink(dotfiles, join(i.prefix, "config"));
    const before = await outside(i);
    const r = await uninstall(i, ["--yes", "--include-shared"]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain("! kept: ~/.gentle-shell/config (it is a link, which is never followed)");
    expect(await outside(i)).toEqual(before);
    expect((await fs.readdir(i.prefix)).sort()).toEqual(["config"]);
    expect(r.stdout).toContain("~/.gentle-shell still holds config, so it was kept.");
  });

  it("never removes ~/.engram's memory when ~/.engram is a link into a folder of the prefix", async () => {
    const i = await installed(f);
    const memory = join(i.prefix, "gentle-ai", "memory");
    await fs.mkdir(memory, { recursive: true });
    await fs.writeFile(join(memory, "engram.db"), "SQLite format 3\0my memories");
    await fs.symlink(memory, join(i.home, ".engram"));
    const before = await outside(i);
    const r = await uninstall(i, ["--yes", "--include-shared"]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain("! kept: ~/.gentle-shell/gentle-ai (it lies in a folder that is never removed)");
    expect(await fs.readFile(join(i.home, ".engram", "engram.db"), "utf8")).toBe("SQLite format 3\0my memories");
    expect(await outside(i)).toEqual(before);
    expect(existsSync(join(i.prefix, "runtime"))).toBe(false);
  });

  it("waits for an upgrade running in another terminal, then removes everything, with the launcher last", async () => {
    const i = await installed(f, { release: older.shell });
    const before = await outside(i);
    const upgrade = gs(i, ["upgrade"]);
    // The upgrade holds the install lock while it works.
    const lock = join(i.prefix, ".gentle-shell-setup.lock");
    for (let n = 0; n < 400 && !existsSync(lock); n++) await new Promise((r) => setTimeout(r, 25));
    expect(existsSync(lock), "the upgrade took the install lock").toBe(true);
    const r = await uninstall(i, ["--yes"]);
    const up = await upgrade;
    expect(up.code, up.stdout + up.stderr).toBe(0);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(/Waiting for another gentle-shell-setup \(process \d+\) to finish\.\.\./);
    expect(r.stderr).toBe("");
    expect((await fs.readdir(i.prefix)).sort()).toEqual(["agent"]);
    expect(await outside(i)).toEqual(before);
    expect(existsSync(join(i.home, ".bashrc"))).toBe(false);
  });

  it("reports an entry it cannot remove, keeps the launcher, and a second run finishes", async () => {
    const i = await installed(f);
    const stuck = join(i.prefix, "pnpm", "stuck");
    await fs.writeFile(stuck, "x");
    await runCommand("chattr", ["+i", stuck]);
    try {
      const before = await outside(i);
      const r = await uninstall(i, ["--yes", "--include-shared"]);
      expect(r.code).toBe(1);
      expect(r.stderr.trim()).toBe("gentle-shell: could not remove ~/.gentle-shell/pnpm/stuck (EPERM). Fix that, then run gentle-shell self-uninstall again.");
      expect(r.stderr).not.toMatch(/\n\s+at /);
      // What the launcher needs to run is still there.
      for (const rel of ["bin/gentle-shell", "current", "versions", "runtime"]) expect(existsSync(join(i.prefix, rel)), rel).toBe(true);
      expect(await outside(i)).toEqual(before);
    } finally {
      await runCommand("chattr", ["-i", stuck]);
    }
    const again = await uninstall(i, ["--yes", "--include-shared"]);
    expect(again.code, again.stdout + again.stderr).toBe(0);
    expect(existsSync(i.prefix)).toBe(false);
  });

  it("under a symlinked HOME, finds its own PATH line and shows paths with ~", async () => {
    const i = await installed(f, {
      home: async (root) => {
        await fs.mkdir(join(root, "realhome"));
        await fs.symlink(join(root, "realhome"), join(root, "linkhome"));
        return join(root, "linkhome");
      },
    });
    const dry = await uninstall(i, ["--dry-run"]);
    expect(dry.code, dry.stdout + dry.stderr).toBe(4);
    expect(dry.stdout).toContain("This removes Gentle Shell from ~/.gentle-shell:");
    expect(dry.stdout).toContain("  - PATH: the marked line in ~/.bashrc");
    expect(dry.stdout).toContain("  - ~/.gentle-shell/runtime");
    expect(dry.stdout).not.toMatch(/by hand|realhome/);
    const before = await outside(i);
    const r = await uninstall(i, ["--yes"]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain("✔ PATH: removed the marked line in ~/.bashrc");
    expect(existsSync(join(i.home, ".bashrc"))).toBe(false);
    expect(await fs.readdir(i.prefix)).toEqual(["agent"]);
    expect(await outside(i)).toEqual(before);
  });

  it("removes config/install-source and then the whole prefix when config/config.json exists and --include-shared is given", async () => {
    const i = await installed(f);
    await fs.writeFile(join(i.prefix, "config", "config.json"), "{}\n");
    expect(existsSync(join(i.prefix, "config", "install-source"))).toBe(true);
    const before = await outside(i);
    const r = await uninstall(i, ["--yes", "--include-shared"]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain("✔ removed ~/.gentle-shell");
    expect(existsSync(i.prefix)).toBe(false);
    expect(await outside(i)).toEqual(before);
  });

  it("keeps a tool of the user's in bin/ and names it; only our marked launcher and guard go", async () => {
    const i = await installed(f);
    await fs.writeFile(join(i.prefix, "bin", "my-tool"), "#!/bin/sh\necho mine\n", { mode: 0o755 });
    const before = await outside(i);
    const r = await uninstall(i, ["--yes", "--include-shared"]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain("! kept: ~/.gentle-shell/bin/my-tool (it was not written by gentle-shell-setup)");
    expect(await fs.readdir(join(i.prefix, "bin"))).toEqual(["my-tool"]);
    expect(await fs.readFile(join(i.prefix, "bin", "my-tool"), "utf8")).toBe("#!/bin/sh\necho mine\n");
    expect(await fs.readdir(i.prefix)).toEqual(["bin"]);
    expect(await outside(i)).toEqual(before);
  });
});
