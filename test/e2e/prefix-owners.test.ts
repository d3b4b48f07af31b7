/**
 * Another user's entries in ~/.gentle-shell (issue 39, 1), through the real
 * fixture installer. The attack: the user's ~/.gentle-shell is 0777, and
 * another uid, a real process of its own, makes npm/ (0777) with an empty
 * npmrc (0666) in it, to write script-shell= or registry= there once the
 * install has claimed the folder. The claim refuses it in one sentence
 * before any download, and nothing is written: no current, no launcher, no
 * PATH line, the other user's entries as they were. A prefix whose
 * group-writable entries are all the user's own (umask 002) is tightened
 * and installs.
 */
import { spawnSync } from "node:child_process";
import { promises as fs } from "node:fs";
import { describe, expect, it } from "vitest";
import { join } from "pathe";
import { fixtures } from "../support/context";
import { prepareInstall, runInstall } from "../support/installed";
import { mirrorClient } from "../support/mirror";
import { runCommand } from "../support/proc";
import { scratchDir } from "../support/scratch";
import { requires } from "../support/capabilities";

const f = fixtures();
const OTHER = 12345;

/** Run `script` with sh as the other user (its own uid and gid, no groups of ours), with `dir` as $1. */
function asOtherUser(script: string, dir: string) {
  const r = spawnSync("/bin/sh", ["-c", script, "sh", dir], { uid: OTHER, gid: OTHER, encoding: "utf8" });
  expect(r.status, r.stderr).toBe(0);
}

async function owned(path: string) {
  const s = await fs.lstat(path);
  return { uid: s.uid, mode: s.mode & 0o7777, size: s.size };
}

describe("a ~/.gentle-shell that another user wrote into", () => {
  it("is refused at the claim with one sentence naming npm/ and its owner, before any download, and nothing is written", async (ctx) => {
    requires(ctx, "owners", "posix-modes");
    const root = scratchDir("gss-owners-");
    const home = join(root, "home");
    const prefix = join(home, ".gentle-shell");
    const install = await prepareInstall(f, home, ["--no-setup"]);
    // The other user must reach the prefix: the scratch folder and the home are 0755, ~/.gentle-shell is open to all.
    await fs.chmod(root, 0o755);
    await fs.chmod(home, 0o755);
    await fs.mkdir(prefix);
    await fs.chmod(prefix, 0o777);
    asOtherUser('umask 000 && mkdir -m 0777 "$1/npm" && : > "$1/npm/npmrc" && chmod 0666 "$1/npm/npmrc"', prefix);
    const before = { npm: await owned(join(prefix, "npm")), npmrc: await owned(join(prefix, "npm", "npmrc")) };
    expect(before).toEqual({ npm: { uid: OTHER, mode: 0o777, size: before.npm.size }, npmrc: { uid: OTHER, mode: 0o666, size: 0 } });

    const scope = await mirrorClient(f.mirrorUrl).scope();
    const args = install.args.map((a) => (a === f.mirrorUrl ? scope.url : a));
    const r = await runCommand(install.command, args, { env: install.env, cwd: install.cwd });
    expect(r.stderr.trim()).toBe(
      "gentle-shell-setup: ~/.gentle-shell/npm belongs to another user (uid 12345), so Gentle Shell cannot trust it and nothing was changed; remove it (as that user, or with sudo) and run the installer again.",
    );
    expect(r.code).toBe(4);
    expect(r.stdout).not.toMatch(/^✔ claim/m);
    // Before any download: the mirror was asked nothing but the one reachability GET of its base URL.
    expect((await scope.requests()).filter((q) => q.path.replace(/^\/+/, "") !== "")).toEqual([]);
    // Nothing written: no current, no launcher, no runtime, no PATH line or link; the prefix and the other user's entries as they were.
    expect(await fs.readdir(prefix)).toEqual(["npm"]);
    expect(await fs.readdir(join(prefix, "npm"))).toEqual(["npmrc"]);
    expect((await fs.readdir(home)).sort()).toEqual([".gentle-shell", ".npmrc"]);
    expect((await owned(prefix)).mode).toBe(0o777);
    expect({ npm: await owned(join(prefix, "npm")), npmrc: await owned(join(prefix, "npm", "npmrc")) }).toEqual(before);
  });

  it("a prefix whose group-writable entries are all the user's own (umask 002) is tightened, installs, and is found clean again", async (ctx) => {
    requires(ctx, "posix-modes");
    const home = join(scratchDir("gss-owners-"), "home");
    const prefix = join(home, ".gentle-shell");
    const install = await prepareInstall(f, home, ["--no-setup"]);
    const umask002 = (command: string, args: string[]) =>
      runCommand("sh", ["-c", 'umask 002 && exec "$0" "$@"', command, ...args], { env: install.env, cwd: install.cwd });
    const made = await umask002("sh", ["-c", 'mkdir -p "$1/npm" "$1/config" && : > "$1/npm/npmrc"', "sh", prefix]);
    expect(made.code, made.stderr).toBe(0);
    for (const [rel, mode] of [
      ["", 0o775],
      ["npm", 0o775],
      ["npm/npmrc", 0o664],
      ["config", 0o775],
    ] as const) {
      expect((await owned(join(prefix, rel))).mode, rel).toBe(mode);
    }

    const r = await umask002(install.command, install.args);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain("✔ claim: ~/.gentle-shell already there; mode 0700 set, group/other write access removed from 3 entries inside");
    expect((await owned(prefix)).mode).toBe(0o700);
    expect((await owned(join(prefix, "npm"))).mode).toBe(0o755);
    expect((await owned(join(prefix, "npm", "npmrc"))).mode).toBe(0o644);
    expect((await owned(join(prefix, "config"))).mode).toBe(0o755);
    const open = await runCommand("find", [prefix, "!", "-type", "l", "-perm", "/022", "-print"], { cwd: home });
    expect(open.stdout.split("\n").filter(Boolean)).toEqual([]);

    // Installed over, the whole installed prefix (thousands of entries) is looked at again: all ours, nothing to change.
    const again = await runInstall(f, home, ["--no-setup"]);
    expect(again.code, again.stdout + again.stderr).toBe(0);
    expect(again.stdout).toContain("✔ claim: ~/.gentle-shell already there\n");
  });
});
