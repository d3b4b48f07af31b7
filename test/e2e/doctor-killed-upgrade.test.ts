/**
 * An upgrade killed mid-way, for real (issue 41's test list): `gentle-shell
 * upgrade` from the fixture release 4.0.0 to the latest is SIGKILLed, its
 * whole process group, once pnpm is filling the new version's folder (the
 * kill shown to have landed: killed by the signal, its lock still held, the
 * new folder still `installing`, current unmoved). Then `doctor` names what
 * it left (the version folder, the lock and any staging of the gone
 * process: broken, exit 1) and writes nothing; `--fix` removes exactly
 * those, after which `status` is healthy and the tree of the prefix and the
 * home differs from the broken one by exactly the removals doctor named; a
 * second `--fix` changes nothing, and the active version still starts.
 */
import { existsSync, promises as fs, readFileSync, readlinkSync } from "node:fs";
import { join } from "pathe";
import { describe, expect, it } from "vitest";
import { fixtures } from "../support/context";
import { homeEnv } from "../support/fixtures";
import { installed, type Installed } from "../support/installed";
import { runCommand } from "../support/proc";
import { killGroupAt } from "../support/kill-at";
import { treeSnapshot } from "../support/tree";

const f = fixtures();
const [older, latest] = [f.releases[0]!, f.releases[f.releases.length - 1]!];
const LOCK = ".gentle-shell-setup.lock";

const readTextSync = (path: string): string | null => {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return null;
  }
};

function run(i: Installed, args: string[]) {
  return runCommand(i.gs, args, { env: { ...i.env, ENGRAM_STARTUP_POLICY: "disabled" }, cwd: i.home });
}

/**
 * `gentle-shell upgrade` in its own process group, stopped (SIGSTOP) the first time pnpm has begun the new
 * version's folder, then killed: nothing moves on between the point and the kill (test/support/kill-at.ts).
 */
function upgradeKilledInPnpm(i: Installed) {
  return killGroupAt(
    i.gs,
    ["upgrade"],
    { env: homeEnv(i.home), cwd: i.home },
    { stopWhen: () => existsSync(join(i.prefix, "versions", latest.id, "node_modules", ".pnpm")) },
  );
}

describe("doctor after an upgrade killed mid-way", () => {
  it("names what the upgrade left, --fix removes exactly that, status is healthy, a second --fix changes nothing", async () => {
    const i = await installed(f, { release: older.shell });
    const killed = await upgradeKilledInPnpm(i);
    // The kill landed mid-upgrade: killed by the signal, its lock held, the new folder unfinished, current unmoved.
    expect(killed.landed, killed.why).toBe(true);
    expect([killed.code, killed.signal], "the upgrade exited by itself").toEqual([null, "SIGKILL"]);
    const lock = readTextSync(join(i.prefix, LOCK));
    expect(lock, "the upgrade had released its lock, so it had finished").not.toBeNull();
    const marker = readTextSync(join(i.prefix, "versions", latest.id, ".gentle-shell-version"))?.trim() ?? "";
    expect(marker).toMatch(new RegExp(`^installing ${latest.id.replace(/[.]/g, "\\.")} \\d+$`));
    expect(readlinkSync(join(i.prefix, "current"))).toBe(`versions/${older.id}`);
    const upgrader = Number(marker.split(" ")[2]);
    const locker = Number(lock!.trim().split(" ")[0]);
    const broken = await treeSnapshot(i.root);

    // doctor names each leftover of the gone upgrade, and writes nothing.
    const told = await run(i, ["doctor"]);
    expect(told.code, told.stdout + told.stderr).toBe(1);
    expect(told.stdout).toContain(`  broken versions/${latest.id} is an interrupted install (left by process ${upgrader}, which is gone)`);
    expect(told.stdout).toContain(`  broken the installers' lock was left by process ${locker}, which is gone`);
    const staging = [...told.stdout.matchAll(/^ {2}broken (\S+) was left by an interrupted run \(process (\d+) is gone\)$/gm)].map((m) => m[1]!);
    expect(told.stdout).toMatch(/\nGentle Shell in ~\/\.gentle-shell is broken \(/);
    expect(await treeSnapshot(i.root)).toEqual(broken);

    const fixed = await run(i, ["doctor", "--fix"]);
    expect(fixed.code, fixed.stdout + fixed.stderr).toBe(0);
    expect(
      fixed.stdout
        .split("\n")
        .filter((l) => l.startsWith("repaired: "))
        .sort(),
    ).toEqual(
      [
        `repaired: removed ~/.gentle-shell/versions/${latest.id}, left by an interrupted run`,
        "repaired: took over the installers' lock its gone process left",
        ...staging.map((path) => `repaired: removed ${path}, left by an interrupted run`),
      ].sort(),
    );
    const status = await run(i, ["status", "--no-memory"]);
    expect(status.code, status.stdout + status.stderr).toBe(0);
    expect(status.stdout).toMatch(/^Gentle Shell in ~\/\.gentle-shell: healthy\n/);

    // Exactly the repair: the broken tree less the folder, the lock and the staging doctor named; nothing added or changed.
    const removed = [`versions/${latest.id}`, LOCK, ...staging.map((path) => path.replace(/^~\/\.gentle-shell\//, ""))].map(
      (rel) => `home/.gentle-shell/${rel}`,
    );
    const gone = (key: string) => removed.some((path) => key === path || key.startsWith(`${path}/`));
    const expected = Object.fromEntries(Object.entries(broken).filter(([key]) => !gone(key)));
    for (const path of removed) expect(broken[path], `${path} was there before --fix`).toBeDefined();
    const after = await treeSnapshot(i.root);
    expect(after).toEqual(expected);

    const again = await run(i, ["doctor", "--fix"]);
    expect(again.code, again.stdout + again.stderr).toBe(0);
    expect(again.stdout).not.toContain("repaired: ");
    expect(await treeSnapshot(i.root)).toEqual(after);

    const version = await run(i, ["--version"]);
    expect(version.code).toBe(0);
    expect(version.stdout.split("\n").slice(0, 2)).toEqual([`gentle-shell ${older.shell}`, `pi ${older.pi}`]);
    await expect(fs.lstat(join(i.prefix, LOCK))).rejects.toThrow();
  });
});
