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
import { installed } from "../support/installed";

const f = fixtures();
const [older, latest] = [f.releases[0]!, f.releases[f.releases.length - 1]!];
const packageVersion = (JSON.parse(readFileSync(join(__dirname, "..", "..", "package.json"), "utf8")) as { version: string }).version;

/** The older release: a copy of the run's shared install of it, or a real install from another source. */
async function installOlder(source = f.mirrorUrl) {
  return (await installed(f, { release: older.shell, ...(source === f.mirrorUrl ? {} : { source }) })).home;
}

function gs(home: string, args: string[], extra: NodeJS.ProcessEnv = {}) {
  return runCommand(join(home, ".gentle-shell", "bin", "gentle-shell"), args, { env: homeEnv(home, extra), cwd: home });
}

async function versionLines(home: string) {
  return (await gs(home, ["--version"])).stdout.split("\n").slice(0, 2);
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
});
