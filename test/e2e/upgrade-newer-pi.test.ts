/**
 * gentle-shell upgrade when the active Pi is newer than the release's (spec:
 * "gentle-shell upgrade in a bundled install", step 3): from the fixture
 * release 4.0.0 (Pi 1.6.0) to a release 4.1.0 made here that pins the older
 * Pi 1.5.0, served from a folder laid out like the mirror. Shell keeps Pi
 * 1.6.0 and installs gentle-pi 4.1.0 with it, resolved by pnpm: the release's
 * lockfile, made for 4.1.0 with Pi 1.5.0, is never used.
 */
import { describe, expect, it } from "vitest";
import { existsSync, promises as fs } from "node:fs";
import { join } from "pathe";
import { PI_PACKAGE } from "../../src/core/release-project";
import { versionId } from "../../src/core/layout";
import { fixtures } from "../support/context";
import { FIXTURE_NEXT_ENGINE, FIXTURE_PI } from "../support/fixtures";
import { signedReleaseSource } from "../support/release-publish";
import { installed } from "../support/installed";
import { gs, versionLines } from "../support/launch";
import { scratchDir } from "../support/scratch";

const f = fixtures();
const older = f.releases[0]!;
const SHELL = "4.1.0";
const RELEASE_PI = "1.5.0";

/** A source folder with the runtimes of the fixture mirror and a signed release 4.1.0 that pins Pi 1.5.0. */
function olderPiRelease(): Promise<{ root: string; lockfile: string }> {
  return signedReleaseSource(f, { shell: SHELL, pi: RELEASE_PI, scratch: scratchDir("gss-newer-pi-source-") });
}

const release = olderPiRelease();
// Awaited by each test; a failure is theirs to report.
release.catch(() => undefined);

/** The older release, a copy of the run's shared install of it (test/support/installed.ts). */
async function installOlder(): Promise<string> {
  return (await installed(f, { release: older.shell })).home;
}

describe.concurrent("gentle-shell upgrade to a release with an older Pi", () => {
  it("keeps the active Pi, installs the release's gentle-pi with it without the release's lockfile, and switches", async () => {
    const [home, { root, lockfile }] = await Promise.all([installOlder(), release]);
    expect(older.pi).toBe(FIXTURE_PI);
    expect(await versionLines(home)).toEqual([`gentle-shell ${older.shell}`, `pi ${FIXTURE_PI}`]);

    const up = await gs(home, ["upgrade", "--source", root]);
    expect(up.stderr).toBe("");
    expect(up.code).toBe(0);
    const warnings = up.stdout.split("\n").filter((line) => line.startsWith("Warning:"));
    expect(warnings).toEqual([
      `Warning: Shell keeps Pi ${FIXTURE_PI} (newer than the release's Pi ${RELEASE_PI}) and installs gentle-pi ${SHELL} without the release's lockfile; pnpm resolves that pair.`,
    ]);
    // Still the release's signed manifest and its own engine.
    expect(up.stdout).toContain(`Installing Gentle Shell ${SHELL} with Pi ${FIXTURE_PI} (signature verified; it brings its own engine)...`);
    expect(up.stdout).toContain(`Using the engine of Gentle Shell ${SHELL} (gentle-shell-setup ${FIXTURE_NEXT_ENGINE})...`);
    const kept = versionId(SHELL, FIXTURE_PI);
    expect(up.stdout).toContain(`Gentle Shell ${SHELL} with Pi ${FIXTURE_PI} is now current (was ${older.id})`);
    expect(await versionLines(home)).toEqual([`gentle-shell ${SHELL}`, `pi ${FIXTURE_PI}`]);

    const prefix = join(home, ".gentle-shell");
    expect((await fs.readdir(join(prefix, "versions"))).sort()).toEqual([older.id, kept].sort());
    expect(await fs.readlink(join(prefix, "current"))).toBe(`versions/${kept}`);
    const version = join(prefix, "versions", kept);
    // No frozen install of the release's lockfile: pnpm resolved the pair (its own lockfile), and Pi 1.5.0 is nowhere.
    expect(lockfile).toContain(`${PI_PACKAGE}@${RELEASE_PI}`);
    const own = await fs.readFile(join(version, "pnpm-lock.yaml"), "utf8");
    expect(own).not.toBe(lockfile);
    expect(own).toContain(`${PI_PACKAGE}@${FIXTURE_PI}`);
    expect(own).not.toContain(`${PI_PACKAGE}@${RELEASE_PI}`);
    const store = await fs.readdir(join(version, "node_modules", ".pnpm"));
    const piDirs = store.map((name) => /^@earendil-works\+pi-coding-agent@([^_]+)/.exec(name)?.[1]).filter(Boolean);
    expect(piDirs).toEqual([FIXTURE_PI]);
    expect(JSON.parse(await fs.readFile(join(version, "node_modules", PI_PACKAGE, "package.json"), "utf8")).version).toBe(FIXTURE_PI);

    const again = await gs(home, ["upgrade", "--source", root]);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain(`Gentle Shell ${SHELL} with Pi ${FIXTURE_PI} is already current; nothing was changed.`);
  });

  it("stops with one sentence and changes nothing when pnpm cannot resolve the release's gentle-pi with the kept Pi", async () => {
    const [home, { root }] = await Promise.all([installOlder(), release]);
    // The active version claims a Pi the registry does not have (its pin and its installed package agree).
    const version = join(home, ".gentle-shell", "versions", older.id);
    const missing = "9.9.9";
    const pkgFile = join(version, "package.json");
    await fs.writeFile(pkgFile, (await fs.readFile(pkgFile, "utf8")).replace(`"${PI_PACKAGE}": "${FIXTURE_PI}"`, `"${PI_PACKAGE}": "${missing}"`));
    const piFile = join(version, "node_modules", PI_PACKAGE, "package.json");
    const piText = (await fs.readFile(piFile, "utf8")).replace(/"version": "[^"]+"/, `"version": "${missing}"`);
    // A new file, not the store's hard-linked one.
    await fs.rm(piFile);
    await fs.writeFile(piFile, piText);
    expect(await versionLines(home)).toEqual([`gentle-shell ${older.shell}`, `pi ${missing}`]);

    const up = await gs(home, ["upgrade", "--source", root]);
    expect(up.code).toBe(1);
    expect(up.stdout).toContain(`Warning: Shell keeps Pi ${missing} (newer than the release's Pi ${RELEASE_PI})`);
    expect(up.stderr.trim().split("\n")).toHaveLength(1);
    expect(up.stderr.trim()).toMatch(
      /^gentle-shell: pnpm could not install gentle-pi 4\.1\.0 with Pi 9\.9\.9 without a lockfile \(ERR_PNPM_NO_MATCHING_VERSION No matching version found for @earendil-works\/pi-coding-agent@9\.9\.9 .*\); nothing was changed$/,
    );
    const prefix = join(home, ".gentle-shell");
    expect(await fs.readdir(join(prefix, "versions"))).toEqual([older.id]);
    expect(existsSync(join(prefix, "versions", versionId(SHELL, missing)))).toBe(false);
    expect(await fs.readlink(join(prefix, "current"))).toBe(`versions/${older.id}`);
    expect(await versionLines(home)).toEqual([`gentle-shell ${older.shell}`, `pi ${missing}`]);
  });
});
