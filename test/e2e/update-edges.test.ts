/**
 * gentle-shell update's edges (spec: "Launcher in a bundled install", Pi
 * updates (S5), with "gentle-shell upgrade in a bundled install" steps 5-7):
 * a registry whose latest Pi is older than the active one, a new pair that
 * fails its launcher check, and a second command waiting on the install
 * lock (and an upgrade --rollback doing the same). The active install is the fixture release 4.0.0 with the real Pi
 * 1.6.0; the Pi scope's registry (a prefix npmrc line, as a corporate user's
 * `@scope:registry` is copied) is then a verdaccio of the test's own,
 * holding only fixture Pis (support/fixture-pi.ts): real npm publishes,
 * real pnpm installs, the real launcher check.
 */
import { afterAll, describe, expect, it } from "vitest";
import { spawn } from "node:child_process";
import { existsSync, promises as fs } from "node:fs";
import { join } from "pathe";
import { prefixLayout } from "../../src/core/layout";
import { activateVersion } from "../../src/install/activate";
import { acquireInstallLock } from "../../src/install/lock";
import { fixtures } from "../support/context";
import { homeEnv } from "../support/fixtures";
import { packFixturePi } from "../support/fixture-pi";
import { installed, type Installed } from "../support/installed";
import { gs, MEMORY_OFF, versionLines } from "../support/launch";
import type { RunResult } from "../support/proc";
import { type Registry, startRegistry } from "../support/registry";
import { scratchDir } from "../support/scratch";

const f = fixtures();
const active = f.releases[0]!;
const registries: Registry[] = [];
afterAll(async () => {
  await Promise.all(registries.map((r) => r.stop()));
});

/** A registry of this test's own for Pi's scope, named in the prefix npmrc after the install. */
async function piScopeRegistry(i: Installed): Promise<Registry & { publishPi(version: string, reports?: string): Promise<void> }> {
  const registry = await startRegistry({ isolated: true, gentlePiVersions: [], uplink: "http://127.0.0.1:9/" /* unused: no proxy */ });
  registries.push(registry);
  const npmrc = join(i.prefix, "pnpm", "config", "npmrc");
  await fs.appendFile(npmrc, `@earendil-works:registry=${registry.url}\n`);
  const packed = scratchDir("gss-fixture-pi-");
  return Object.assign(registry, {
    publishPi: async (version: string, reports = version) => registry.publish(await packFixturePi(version, reports, packed)),
  });
}

/** The launcher started in the background, with memory off as every run here (so no test starts the shared Engram server): its result, and its stdout so far. */
function gsStarted(i: Installed, args: string[]) {
  const child = spawn(i.gs, args, { env: homeEnv(i.home, MEMORY_OFF), cwd: i.home, stdio: ["ignore", "pipe", "pipe"] });
  const seen = { stdout: "", stderr: "" };
  child.stdout.setEncoding("utf8").on("data", (d: string) => (seen.stdout += d));
  child.stderr.setEncoding("utf8").on("data", (d: string) => (seen.stderr += d));
  const result = new Promise<RunResult>((resolve) => child.on("close", (code, signal) => resolve({ code, signal, ...seen })));
  return { seen, result };
}

async function until<T>(what: string, probe: () => Promise<T | null | undefined> | T | null | undefined, ms = 120_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const versions = async (i: Installed) => (await fs.readdir(join(i.prefix, "versions"))).sort();
const current = (i: Installed) => fs.readlink(join(i.prefix, "current"));

/**
 * The active gentle-pi's peer range for Pi set to `range` (the fixture declares "*"): its installed
 * package.json is replaced by a new file, never written in place, so no other copy sharing its inode changes.
 */
async function setPiPeer(i: Installed, range: string): Promise<void> {
  const file = join(i.prefix, "versions", active.id, "node_modules", "gentle-pi", "package.json");
  const manifest = JSON.parse(await fs.readFile(file, "utf8"));
  manifest.peerDependencies = { ...manifest.peerDependencies, "@earendil-works/pi-coding-agent": range };
  await fs.writeFile(`${file}.new`, `${JSON.stringify(manifest, null, 2)}\n`);
  await fs.rename(`${file}.new`, file);
}

describe.concurrent("gentle-shell update, edges", () => {
  it("changes nothing when the newest stable Pi is older or the active one (latest a pre-release), and removes a new pair that fails its launcher check", async () => {
    const i = await installed(f, { release: active.shell });
    const scope = await piScopeRegistry(i);

    // The registry's latest Pi is older than the active one (a mirror that lags): nothing is installed, exit 0.
    await scope.publishPi("1.5.0");
    const older = await gs(i.home, ["update"], MEMORY_OFF);
    expect(older.stderr).toBe("");
    expect(older.code).toBe(0);
    expect(older.stdout).toBe(`The newest published stable Pi is 1.5.0, older than the active Pi ${active.pi}; nothing was changed.\n`);
    expect(await versions(i)).toEqual([active.id]);

    // latest names a pre-release (spec: update selects the newest published *stable* Pi): the active Pi is that.
    await scope.publishPi(active.pi);
    await scope.publishPi("1.7.0-beta.1");
    const pre = await gs(i.home, ["update"], MEMORY_OFF);
    expect(pre.stderr).toBe("");
    expect(pre.code).toBe(0);
    expect(pre.stdout).toBe(
      `Pi ${active.pi} is the newest published Pi; Gentle Shell ${active.shell} with Pi ${active.pi} is already current, nothing was changed.\n`,
    );
    expect(await versions(i)).toEqual([active.id]);

    // A newer Pi whose --version reports another version: pnpm installs it, the launcher check (step 5) refuses it.
    await scope.publishPi("1.7.0", "1.6.9");
    const broken = await gs(i.home, ["update"], MEMORY_OFF);
    expect(broken.code).toBe(1);
    expect(broken.stdout).toContain(`Installing Gentle Shell ${active.shell} with Pi 1.7.0...`);
    expect(broken.stdout).not.toContain("is now current");
    const errors = broken.stderr.split("\n").filter(Boolean);
    expect(errors).toEqual([
      `gentle-shell: the launcher check of Gentle Shell ${active.shell} with Pi 1.7.0 failed (the pinned Pi 1.7.0 in versions/${active.shell}-1.7.0 reported "1.6.9"), expected gentle-shell ${active.shell} / pi 1.7.0; nothing was changed`,
    ]);
    // current stayed, and the folder this command installed is gone.
    expect(await current(i)).toBe(`versions/${active.id}`);
    expect(await versions(i)).toEqual([active.id]);
    expect(existsSync(join(i.prefix, "tmp"))).toBe(false);
    expect(await versionLines(i.home, MEMORY_OFF)).toEqual([`gentle-shell ${active.shell}`, `pi ${active.pi}`]);
  });

  it("takes the newest stable Pi inside the active gentle-pi's peer range for Pi, and changes nothing when no release is inside it", async () => {
    const i = await installed(f, { release: active.shell });
    const scope = await piScopeRegistry(i);
    await scope.publishPi(active.pi);
    await scope.publishPi("1.6.5");
    await scope.publishPi("1.7.0");

    // A range no published stable Pi satisfies: one sentence, exit 1, nothing installed.
    await setPiPeer(i, ">=2.0.0");
    const none = await gs(i.home, ["update"], MEMORY_OFF);
    expect(none.code).toBe(1);
    expect(none.stdout).toBe("");
    expect(none.stderr).toBe(
      `gentle-shell: no stable Pi release satisfies the active gentle-pi ${active.shell}'s peer range for Pi (>=2.0.0; the newest stable Pi is 1.7.0); nothing was changed\n`,
    );
    expect(await versions(i)).toEqual([active.id]);

    // ~1.6.0 allows 1.6.5 and not the newer 1.7.0 (which an update ignoring the range would take).
    await setPiPeer(i, "~1.6.0");
    const up = await gs(i.home, ["update"], MEMORY_OFF);
    expect(up.stderr).toBe("");
    expect(up.code).toBe(0);
    expect(up.stdout).toContain(`Gentle Shell ${active.shell} with Pi 1.6.5 is now current (was ${active.id}).`);
    expect(up.stdout).not.toContain("1.7.0");
    expect(await current(i)).toBe(`versions/${active.shell}-1.6.5`);
    expect(await versionLines(i.home, MEMORY_OFF)).toEqual([`gentle-shell ${active.shell}`, "pi 1.6.5"]);
  });

  it("a second update waits on the install lock and names who it waits for; it stops when current moved meanwhile, else it proceeds", async () => {
    const i = await installed(f, { release: active.shell });
    const scope = await piScopeRegistry(i);
    await scope.publishPi("1.8.0");
    const lockFile = prefixLayout({ home: i.home, platform: "linux", pins: f.pins }).lock;

    // A real update holds the lock; a second one started meanwhile waits for that process.
    const first = gsStarted(i, ["update"]);
    const holder = await until("the first update's lock", async () => (await fs.readFile(lockFile, "utf8").catch(() => "")).split(" ")[0]);
    const second = gsStarted(i, ["update"]);
    const [a, b] = await Promise.all([first.result, second.result]);
    expect(a.stderr).toBe("");
    expect(a.code).toBe(0);
    expect(a.stdout).toContain(`Gentle Shell ${active.shell} with Pi 1.8.0 is now current (was ${active.id}).`);
    // The second one resolved the old current before it waited: it must not act on that stale plan.
    expect(b.stdout).toBe(`Waiting for another gentle-shell-setup (process ${holder}) to finish...\n`);
    expect(b.stderr).toBe(
      `gentle-shell: current moved from ${active.id} to ${active.shell}-1.8.0 while this command waited for another gentle-shell-setup (process ${holder}); nothing was changed, run it again\n`,
    );
    expect(b.code).toBe(1);
    expect(await current(i)).toBe(`versions/${active.shell}-1.8.0`);

    // The lock held by another process (this test, through the product's own lock): the update waits, then proceeds.
    await scope.publishPi("1.9.0");
    const layout = prefixLayout({ home: i.home, platform: "linux", pins: f.pins });
    const lock = await acquireInstallLock(layout, 1_000);
    const third = gsStarted(i, ["update"]);
    await until("the third update to wait", () => third.seen.stdout.includes(`Waiting for another gentle-shell-setup (process ${process.pid}) to finish...`));
    // Nothing happens while it waits.
    await new Promise((r) => setTimeout(r, 1_000));
    expect(third.seen.stdout).toBe(`Waiting for another gentle-shell-setup (process ${process.pid}) to finish...\n`);
    await lock.release();
    const c = await third.result;
    expect(c.stderr).toBe("");
    expect(c.code).toBe(0);
    expect(c.stdout).toContain(`Gentle Shell ${active.shell} with Pi 1.9.0 is now current (was ${active.shell}-1.8.0).`);
    expect(await current(i)).toBe(`versions/${active.shell}-1.9.0`);
    expect(await versions(i)).toEqual([`${active.shell}-1.8.0`, `${active.shell}-1.9.0`]);
    expect(existsSync(lockFile)).toBe(false);

    // upgrade --rollback the same way: the lock holder (this test) switches current while it waits, so it stops.
    const held = await acquireInstallLock(layout, 1_000);
    const rollback = gsStarted(i, ["upgrade", "--rollback"]);
    await until("the rollback to wait", () => rollback.seen.stdout.includes(`(process ${process.pid}) to finish...`));
    await activateVersion(layout, `${active.shell}-1.8.0`);
    await held.release();
    const r = await rollback.result;
    expect(r.stdout).toBe(`Waiting for another gentle-shell-setup (process ${process.pid}) to finish...\n`);
    expect(r.stderr).toBe(
      `gentle-shell: current moved from ${active.shell}-1.9.0 to ${active.shell}-1.8.0 while this command waited for another gentle-shell-setup (process ${process.pid}); nothing was changed, run it again\n`,
    );
    expect(r.code).toBe(1);
    expect(await current(i)).toBe(`versions/${active.shell}-1.8.0`);
    expect(existsSync(lockFile)).toBe(false);
  });
});
