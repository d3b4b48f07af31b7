/**
 * gentle-shell upgrade and --rollback through the installed launcher, from
 * the fixture release 4.0.0 to the registry's latest, 4.1.0, and back.
 */
import { describe, expect, it } from "vitest";
import { existsSync, promises as fs, readFileSync } from "node:fs";
import { join } from "pathe";
import { fixtures } from "../support/context";
import { FIXTURE_NEXT_ENGINE, homeEnv } from "../support/fixtures";
import { mirrorClient } from "../support/mirror";
import { runCommand } from "../support/proc";
import { INSTALL_LINKED, installed, runInstall } from "../support/installed";
import { gs, versionLines } from "../support/launch";
import { sharedTree } from "../support/shared-install";
import { treeSnapshot } from "../support/tree";

const f = fixtures();
const [older, latest] = [f.releases[0]!, f.releases[f.releases.length - 1]!];
const packageVersion = (JSON.parse(readFileSync(join(__dirname, "..", "..", "package.json"), "utf8")) as { version: string }).version;

/**
 * The older release: a copy of the run's shared install of it. With another `source` (a scope of the fixture
 * mirror, which serves the same files), the copy remembers that source instead, as an install from it would
 * (config/install-source is the one file that names where an install came from).
 */
async function installOlder(source = f.mirrorUrl) {
  const home = (await installed(f, { release: older.shell })).home;
  if (source !== f.mirrorUrl) await fs.writeFile(join(home, ".gentle-shell", "config", "install-source"), `${source}\n`, { mode: 0o600 });
  return home;
}

/** A copy of the older release's install upgraded to the latest (made once per run): rollback has a version to go back to. */
async function upgradedInstall(): Promise<string> {
  const copy = await sharedTree(
    f,
    `upgraded-${older.id}-${latest.id}`,
    async (root) => {
      const home = join(root, "home");
      const install = await runInstall(f, home, ["--release", older.shell]);
      return install.code === 0 ? gs(home, ["upgrade"]) : install;
    },
    { linked: INSTALL_LINKED },
  );
  const home = join(copy.root, "home");
  expect(await fs.readlink(join(home, ".gentle-shell", "current"))).toBe(`versions/${latest.id}`);
  return home;
}

/** The prefix, byte for byte, but for Node's compile caches, which each engine start may write. */
function prefixTree(home: string) {
  const prefix = join(home, ".gentle-shell");
  const caches = [older.id, latest.id].map((id) => join(prefix, "versions", id, ".gentle-shell", "compile-cache"));
  return treeSnapshot(prefix, { skip: caches });
}

describe.concurrent("gentle-shell upgrade", () => {
  it("installs the latest release beside the active one, switches to it, and rolls back and forth", async () => {
    const home = await installOlder();
    expect(await versionLines(home)).toEqual([`gentle-shell ${older.shell}`, `pi ${older.pi}`]);

    const up = await gs(home, ["upgrade"], { NODE_OPTIONS: "--require /nonexistent" });
    expect(up.stderr).toBe("");
    expect(up.code).toBe(0);
    expect(up.stdout).toContain(`Gentle Shell ${latest.shell} with Pi ${latest.pi} is now current (was ${older.id})`);
    // Step 4 ran the new release's own engine (it reports another gentle-shell-setup version), written from the release.
    expect(up.stdout).toContain(`Installing Gentle Shell ${latest.shell} with Pi ${latest.pi} (signature verified; it brings its own engine)...`);
    expect(up.stdout).toContain(`Using the engine of Gentle Shell ${latest.shell} (gentle-shell-setup ${FIXTURE_NEXT_ENGINE})...`);
    expect(await versionLines(home)).toEqual([`gentle-shell ${latest.shell}`, `pi ${latest.pi}`]);
    const prefix = join(home, ".gentle-shell");
    expect((await fs.readdir(join(prefix, "versions"))).sort()).toEqual([older.id, latest.id].sort());
    expect(await fs.readFile(join(prefix, "versions.history"), "utf8")).toBe(`${latest.id}\n${older.id}\n`);
    // Upgrade passes engram: true to the release's own ensure-runtime: the verified core is published.
    const engramMarker = join(prefix, "runtime", "engram-3.5.2", ".gentle-shell-runtime");
    expect(existsSync(engramMarker)).toBe(true);
    await fs.rm(join(prefix, "runtime", "engram-3.5.2"), { recursive: true });

    const again = await gs(home, ["upgrade"]);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain(`Gentle Shell ${latest.shell} with Pi ${latest.pi} is already current; nothing was changed.`);

    // The kept version as an older gentle-shell-setup left it: no launch part, a start file that runs engine.cjs.
    const olderDir = join(prefix, "versions", older.id, ".gentle-shell");
    const startFile = await fs.readFile(join(olderDir, "start.cjs"), "utf8");
    const launchPart = await fs.readFile(join(olderDir, "launch.cjs"));
    await fs.rm(join(olderDir, "launch.cjs"));
    await fs.writeFile(join(olderDir, "start.cjs"), `"use strict";\nrequire("./engine.cjs");\n`);
    const back = await gs(home, ["upgrade", "--rollback"]);
    expect(back.code, back.stdout + back.stderr).toBe(0);
    expect(back.stdout).toContain(`Rolled back: ${older.id} is current again (was ${latest.id}).`);
    // Its own engine wrote both again from itself (ensure-runtime).
    expect((await fs.readFile(join(olderDir, "launch.cjs"))).equals(launchPart)).toBe(true);
    expect(await fs.readFile(join(olderDir, "start.cjs"), "utf8")).toBe(startFile);
    // Rollback runs the kept version's engine, the older release's own: not the one that just ran.
    expect(back.stdout).toContain(`Using the engine of ${older.id} (gentle-shell-setup ${packageVersion})...`);
    expect(back.stdout).not.toContain(FIXTURE_NEXT_ENGINE);
    // So does rollback, with the kept version's own module.
    expect(existsSync(engramMarker)).toBe(true);
    expect(await versionLines(home)).toEqual([`gentle-shell ${older.shell}`, `pi ${older.pi}`]);

    const forth = await gs(home, ["upgrade", "--rollback"]);
    expect(forth.code).toBe(0);
    expect(await versionLines(home)).toEqual([`gentle-shell ${latest.shell}`, `pi ${latest.pi}`]);
    expect(await fs.readlink(join(prefix, "current"))).toBe(`versions/${latest.id}`);
  });

  it("stops with the release's version and changes nothing when the release has no assets", async () => {
    const scope = await mirrorClient(f.mirrorUrl).scope();
    const home = await installOlder(scope.url);
    await scope.setFault(`releases/v${latest.shell}/gentle-shell-distribution.json`, { kind: "status", status: 404 });
    const r = await gs(home, ["upgrade"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      `Gentle Shell ${latest.shell} lists gentle-shell-distribution.json, but the mirror ${scope.url} does not serve it; nothing was changed`,
    );
    expect(await versionLines(home)).toEqual([`gentle-shell ${older.shell}`, `pi ${older.pi}`]);
    expect(await fs.readdir(join(home, ".gentle-shell", "versions"))).toEqual([older.id]);
  });

  it("switches current back and removes the version it installed when the launcher cannot be written", async () => {
    const home = await installOlder();
    // A foreign file where the launcher goes: step 6 cannot write it, so current switches back.
    const launcher = join(home, ".gentle-shell", "bin", "gentle-shell");
    const text = await fs.readFile(launcher, "utf8");
    const copy = join(home, "gs-copy");
    await fs.writeFile(copy, text, { mode: 0o755 });
    await fs.writeFile(launcher, "#!/bin/sh\nexit 3\n", { mode: 0o755 });
    const r = await runCommand(copy, ["upgrade"], { env: homeEnv(home), cwd: home });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/the launcher could not be written .*current is back on 4\.0\.0-1\.6\.0/);
    expect(await fs.readlink(join(home, ".gentle-shell", "current"))).toBe(`versions/${older.id}`);
    expect(await fs.readFile(launcher, "utf8")).toBe("#!/bin/sh\nexit 3\n");
    expect(existsSync(join(home, ".gentle-shell", "versions", latest.id))).toBe(false);
    expect(await fs.readFile(join(home, ".gentle-shell", "versions.history"), "utf8")).toMatch(new RegExp(`^${older.id.replace(/\./g, "\\.")}\n`));
  });

  it("refuses another channel and unknown options", async () => {
    const home = await installOlder();
    const r = await gs(home, ["upgrade", "--channel", "main"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("the main channel is not supported by a bundled install yet");
  });

  it("names a --source folder that does not exist, or a remembered one that is gone, in one sentence before asking anything", async () => {
    const home = await installOlder();
    const missing = join(home, "no-such-bundle");
    const r = await gs(home, ["upgrade", "--source", missing]);
    expect(r.code).toBe(1);
    // Shown as the user would type it: under ~.
    expect(r.stderr).toBe("gentle-shell: the --source folder ~/no-such-bundle does not exist; nothing was changed\n");
    // The install remembered a folder (a USB stick, say) that is not there any more.
    const prefix = join(home, ".gentle-shell");
    await fs.writeFile(join(prefix, "config", "install-source"), `${missing}\n`, { mode: 0o600 });
    const remembered = await gs(home, ["upgrade"]);
    expect(remembered.code).toBe(1);
    expect(remembered.stderr).toBe("gentle-shell: the remembered install source folder ~/no-such-bundle does not exist; nothing was changed\n");
    expect(await versionLines(home)).toEqual([`gentle-shell ${older.shell}`, `pi ${older.pi}`]);
    expect(await fs.readdir(join(prefix, "versions"))).toEqual([older.id]);
  });

  it("--rollback without a usable module of the version it would go back to changes nothing", async () => {
    const home = await upgradedInstall();
    const engine = join(home, ".gentle-shell", "versions", older.id, ".gentle-shell", "engine.cjs");
    const kept = join(home, "engine.cjs");
    await fs.rename(engine, kept);
    const modules: [string, () => Promise<void>, string][] = [
      ["no engine", async () => undefined, `gentle-shell: versions/${older.id} has no engine of its own`],
      ["an engine outside its folder", () => fs.symlink(kept, engine), `gentle-shell: the engine of versions/${older.id} lies outside its folder`],
      [
        "a module without ensureLauncher",
        () => fs.writeFile(engine, `process.stdout.write(JSON.stringify({ functions: ["prefixLayout", "ensureRuntime"], engine: "9.9.9" }) + "\\n");\n`),
        "gentle-shell: that version's module has no ensureLauncher; nothing was changed",
      ],
    ];
    for (const [what, make, said] of modules) {
      await fs.rm(engine, { force: true });
      await make();
      const before = await prefixTree(home);
      const r = await gs(home, ["upgrade", "--rollback"]);
      expect(r.code, what).toBe(1);
      expect(r.stderr.trim(), what).toBe(said);
      expect(await prefixTree(home), what).toEqual(before);
    }
    expect(await versionLines(home)).toEqual([`gentle-shell ${latest.shell}`, `pi ${latest.pi}`]);
  });

  it("--rollback switches current back when the launcher cannot be written", async () => {
    const home = await upgradedInstall();
    const prefix = join(home, ".gentle-shell");
    // A foreign file where the launcher goes; the rollback runs from a copy of the launcher.
    const launcher = join(prefix, "bin", "gentle-shell");
    const copy = join(home, "gs-copy");
    await fs.copyFile(launcher, copy);
    await fs.chmod(copy, 0o755);
    await fs.writeFile(launcher, "#!/bin/sh\nexit 3\n", { mode: 0o755 });
    const r = await runCommand(copy, ["upgrade", "--rollback"], { env: homeEnv(home), cwd: home });
    expect(r.code, r.stdout + r.stderr).toBe(1);
    expect(r.stderr).toContain(`the launcher could not be written (`);
    expect(r.stderr).toContain(`; current is back on ${latest.id}`);
    expect(await fs.readlink(join(prefix, "current"))).toBe(`versions/${latest.id}`);
    expect((await fs.readFile(join(prefix, "versions.history"), "utf8")).split("\n")[0]).toBe(latest.id);
    expect(await fs.readFile(launcher, "utf8")).toBe("#!/bin/sh\nexit 3\n");
    // Both versions stay: a rollback installs and removes none.
    expect((await fs.readdir(join(prefix, "versions"))).sort()).toEqual([older.id, latest.id].sort());
    const v = await runCommand(copy, ["--version"], { env: homeEnv(home), cwd: home });
    expect(v.stdout.split("\n").slice(0, 2)).toEqual([`gentle-shell ${latest.shell}`, `pi ${latest.pi}`]);
  });
});
