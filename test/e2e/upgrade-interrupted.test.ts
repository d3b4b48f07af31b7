/**
 * An upgrade killed at any moment converges when it is run again (issue 29):
 * `gentle-shell upgrade` from the fixture release 4.0.0 to 4.1.0 is killed
 * (SIGKILL of its whole process group: the engine, pnpm, the new version's
 * engine, Pi's --version) at each point of its run, then run again. Each kill
 * lands at its point every time (issue 47, ../support/kill-at.ts): the test
 * build holds the upgrade at its own step mark until the kill, or, inside
 * pnpm, the group is stopped when the prefix shows the point. Each is shown
 * to have landed mid-upgrade: the upgrade died of the signal, its install lock is still in place (it is
 * released only once the upgrade is done) and current is where that point
 * leaves it (issue 39). Each time the second run ends on the latest release,
 * its launcher reports it, a third run has nothing to do, and every version
 * folder left is a finished one.
 */
import { existsSync, promises as fs, readFileSync, readlinkSync } from "node:fs";
import { join } from "pathe";
import { describe, expect, it } from "vitest";
import { fixtures } from "../support/context";
import { homeEnv } from "../support/fixtures";
import { installed } from "../support/installed";
import { gs } from "../support/launch";
import { type KillPoint, killGroupAt } from "../support/kill-at";

const f = fixtures();
const [older, latest] = [f.releases[0]!, f.releases[f.releases.length - 1]!];

const readTextSync = (path: string): string | null => {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return null;
  }
};
const currentOf = (prefix: string): string | null => {
  try {
    return readlinkSync(join(prefix, "current"));
  } catch {
    return null;
  }
};
const LOCK = ".gentle-shell-setup.lock";
const marker = (prefix: string) => readTextSync(join(prefix, "versions", latest.id, ".gentle-shell-version"))?.trim() ?? null;

interface Killed {
  /** The point was reached and the upgrade died of the kill there. */
  landed: boolean;
  why: string;
  /** Right after the kill, before any rerun. */
  lock: string | null;
  current: string | null;
  /** The new version's marker, trimmed. */
  marker: string | null;
}

/** Start an upgrade in its own process group and kill -9 the group at `at`; resolves once it is gone. */
async function upgradeKilledAt(home: string, at: KillPoint): Promise<Killed> {
  const prefix = join(home, ".gentle-shell");
  const { landed, why } = await killGroupAt(join(prefix, "bin", "gentle-shell"), ["upgrade"], { env: homeEnv(home), cwd: home }, at);
  return { landed, why, lock: readTextSync(join(prefix, LOCK)), current: currentOf(prefix), marker: marker(prefix) };
}

/** Every folder under versions/ holds the final marker naming itself. */
async function finishedVersions(home: string): Promise<string[]> {
  const versions = join(home, ".gentle-shell", "versions");
  const ids = (await fs.readdir(versions)).sort();
  for (const id of ids) {
    expect((await fs.readFile(join(versions, id, ".gentle-shell-version"), "utf8")).trim(), `versions/${id}`).toBe(id);
  }
  return ids;
}

interface Point {
  when: string;
  /** The upgrade's own step mark it is held at, or what is seen from outside inside pnpm. */
  at: (home: string) => KillPoint;
  /** The version current names when the kill lands at this point. */
  current: string;
  /** What the new version's marker reads then: unfinished ("installing <id> <pid>") or final; unchecked when absent. */
  marker?: "installing" | "final";
}

const hold = (mark: string) => () => ({ hold: mark });

// The points of one upgrade, in order (one run measured here: the lock at 5% of its length, pnpm from 10% to 78%, the new version's checks to 98%).
const points: Point[] = [
  // Reading the release is still to come: the manifest, its signature and assets.
  { when: "once it holds the install lock", at: hold("upgrade:locked"), current: older.id },
  // The version folder is claimed: its marker reads "installing <id> <pid>" until pnpm is done.
  { when: "when pnpm has started", at: hold("pnpm:start"), current: older.id, marker: "installing" },
  {
    when: "in the middle of pnpm",
    at: (home) => ({ stopWhen: () => existsSync(join(home, ".gentle-shell", "versions", latest.id, "node_modules", ".pnpm")) }),
    current: older.id,
    marker: "installing",
  },
  // The new version's engine, its Pi's --version and its launcher's check are still to come.
  { when: "after the final version marker", at: hold("version:marked"), current: older.id, marker: "final" },
  // Its launcher, the prune and the lock are still to come.
  { when: "after current is switched", at: hold("current:switched"), current: latest.id, marker: "final" },
];

/** The new version's marker as a point names it. */
const markerState = (text: string | null) => (text?.startsWith("installing ") ? "installing" : text === latest.id ? "final" : text);

describe.concurrent("an interrupted upgrade", () => {
  // Each in its own home, at once.
  for (const { when, at, current, marker: left } of points) {
    it(`killed ${when} converges when run again`, async () => {
      const home = (await installed(f, { release: older.shell })).home;
      const first = await upgradeKilledAt(home, at(home));
      // The kill landed mid-upgrade, at its point: never an upgrade that had already finished.
      expect(first.landed, `the upgrade was not killed ${when}: ${first.why}`).toBe(true);
      expect(first.lock, `killed ${when}: the upgrade had released its lock, so it had finished`).not.toBeNull();
      expect(first.current, `killed ${when}`).toBe(`versions/${current}`);
      if (left) expect(markerState(first.marker), `killed ${when}`).toBe(left);

      const again = await gs(home, ["upgrade"]);
      expect(again.code, `killed ${when}: ${again.stdout}${again.stderr}`).toBe(0);
      const version = await gs(home, ["--version"]);
      expect(version.stdout.split("\n").slice(0, 2), `killed ${when}`).toEqual([`gentle-shell ${latest.shell}`, `pi ${latest.pi}`]);
      const third = await gs(home, ["upgrade"]);
      expect(third.code).toBe(0);
      expect(third.stdout).toContain(`Gentle Shell ${latest.shell} with Pi ${latest.pi} is already current; nothing was changed.`);
      expect(await finishedVersions(home), `killed ${when}`).toContain(latest.id);
      expect(existsSync(join(home, ".gentle-shell", LOCK))).toBe(false);
    });
  }

  // The negative control: a mark the upgrade never reaches is reported so, never read as a kill that landed.
  it("a hold at a mark the upgrade never makes is not a kill that landed", async () => {
    const home = (await installed(f, { release: older.shell })).home;
    const first = await upgradeKilledAt(home, { hold: "no such mark" });
    expect(first.landed).toBe(false);
    expect(first.why).toBe("it exited by itself (0) before the point");
    expect(first.current).toBe(`versions/${latest.id}`);
  });
});
