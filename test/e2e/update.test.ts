/**
 * gentle-shell update (spec: "Launcher in a bundled install", Pi updates
 * (S5)) with the real Pi: a signed release 4.1.0 made here pins Pi 1.5.2,
 * older than the registry's latest Pi, and is installed from a folder laid
 * out like the mirror. `update` then moves to the registry's newest stable
 * Pi (read here from the registry, as the engine reads it), keeps the old
 * pair for rollback, and a later upgrade keeps the newer Pi.
 */
import { describe, expect, it } from "vitest";
import { promises as fs } from "node:fs";
import { join } from "pathe";
import { PI_PACKAGE } from "../../src/core/release-project";
import { versionId } from "../../src/core/layout";
import { FORCE_REFUSAL } from "../../src/core/pi-update";
import { fixtures } from "../support/context";
import { FIXTURE_NEXT_ENGINE } from "../support/fixtures";
import { installed } from "../support/installed";
import { gs, MEMORY_OFF, versionLines } from "../support/launch";
import { signedReleaseSource } from "../support/release-publish";
import { scratchDir } from "../support/scratch";

const f = fixtures();
const SHELL = "4.1.0";
const OLD_PI = "1.5.2";
const OLD = versionId(SHELL, OLD_PI);

/** A source folder with the fixture mirror's runtimes and a signed release 4.1.0 that pins Pi 1.5.2. */
async function olderPiRelease(): Promise<string> {
  return (await signedReleaseSource(f, { shell: SHELL, pi: OLD_PI, scratch: scratchDir("gss-update-source-") })).root;
}

/** The registry's dist-tags.latest of Pi, asked directly. */
async function registryLatestPi(): Promise<string> {
  const res = await fetch(`${f.registryUrl}${PI_PACKAGE.replace("/", "%2f")}`, { headers: { accept: "application/vnd.npm.install-v1+json" } });
  return ((await res.json()) as { "dist-tags": { latest: string } })["dist-tags"].latest;
}

const source = olderPiRelease();
const latest = registryLatestPi();
// Awaited by each test; a failure is theirs to report.
source.catch(() => undefined);
latest.catch(() => undefined);

/** A home with release 4.1.0 (Pi 1.5.2) installed from that folder (installed() asserts the install exited 0). */
async function installOld(): Promise<string> {
  return (await installed(f, { source: await source, release: SHELL })).home;
}

async function versions(home: string) {
  return (await fs.readdir(join(home, ".gentle-shell", "versions"))).sort();
}

describe.concurrent("gentle-shell update", () => {
  it("moves to the newest Pi, says when it is current, hands Pi its own forms, refuses --force, keeps the Pi on upgrade and rolls back", async () => {
    const [home, newest] = await Promise.all([installOld(), latest]);
    const NEW = versionId(SHELL, newest);
    expect(newest).not.toBe(OLD_PI);
    expect(await versionLines(home, MEMORY_OFF)).toEqual([`gentle-shell ${SHELL}`, `pi ${OLD_PI}`]);

    // --force on a managed self update: one sentence, exit 2, nothing changed.
    for (const args of [
      ["update", "--force"],
      ["update", "--all", "--force"],
    ]) {
      const r = await gs(home, args, MEMORY_OFF);
      expect(r.code).toBe(2);
      expect(r.stderr).toBe(`gentle-shell: ${FORCE_REFUSAL}\n`);
      expect(r.stdout).toBe("");
    }
    // Pi's own forms reach Pi unchanged: its answers, not ours, and nothing installed.
    const target = await gs(home, ["update", "npm:not-installed-here"], MEMORY_OFF);
    expect(target.code).toBe(1);
    expect(target.stderr).toContain("No matching package found for npm:not-installed-here");
    const refused = await gs(home, ["update", "--latest", "--models"], MEMORY_OFF);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('Unknown option --latest for "update".');
    const help = await gs(home, ["update", "--help"], MEMORY_OFF);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("Update pi, installed packages, or model catalogs.");
    expect(await versions(home)).toEqual([OLD]);

    // No target: the newest stable Pi for the current Shell, installed beside the old pair, verified, switched.
    const up = await gs(home, ["update"], MEMORY_OFF);
    expect(up.stderr).toBe("");
    expect(up.code).toBe(0);
    expect(up.stdout.split("\n").filter((l) => l.startsWith("Warning:"))).toEqual([
      `Warning: Shell installs Pi ${newest} with gentle-pi ${SHELL} without a release's verified lockfile; pnpm resolves that pair from the registry.`,
    ]);
    expect(up.stdout).toContain(`Using the engine of Gentle Shell ${SHELL} with Pi ${newest} (gentle-shell-setup ${FIXTURE_NEXT_ENGINE})...`);
    expect(up.stdout).toContain(`Gentle Shell ${SHELL} with Pi ${newest} is now current (was ${OLD}). \`gentle-shell upgrade --rollback\` goes back.`);
    // Not an all form: Pi's extension update did not run.
    expect(up.stdout).not.toContain("Packages are already up to date");
    expect(await versionLines(home, MEMORY_OFF)).toEqual([`gentle-shell ${SHELL}`, `pi ${newest}`]);
    expect(await versions(home)).toEqual([NEW, OLD].sort());
    const prefix = join(home, ".gentle-shell");
    expect(await fs.readlink(join(prefix, "current"))).toBe(`versions/${NEW}`);
    const own = await fs.readFile(join(prefix, "versions", NEW, "pnpm-lock.yaml"), "utf8");
    expect(own).toContain(`${PI_PACKAGE}@${newest}`);
    expect(own).not.toContain(`${PI_PACKAGE}@${OLD_PI}`);

    // Already current: nothing changes.
    const again = await gs(home, ["update", "--latest"], MEMORY_OFF);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain(`Gentle Shell ${SHELL} with Pi ${newest} is already current, nothing was changed.`);
    expect(await versions(home)).toEqual([NEW, OLD].sort());

    // A later upgrade keeps the newer independently updated Pi (the release still pins Pi 1.5.2).
    const upgrade = await gs(home, ["upgrade"], MEMORY_OFF);
    expect(upgrade.code, upgrade.stdout + upgrade.stderr).toBe(0);
    expect(upgrade.stdout).toContain(`Gentle Shell ${SHELL} with Pi ${newest} is already current; nothing was changed.`);
    expect(await versionLines(home, MEMORY_OFF)).toEqual([`gentle-shell ${SHELL}`, `pi ${newest}`]);

    // The old pair was kept: rollback returns to it.
    const back = await gs(home, ["upgrade", "--rollback"], MEMORY_OFF);
    expect(back.code, back.stdout + back.stderr).toBe(0);
    expect(back.stdout).toContain(`Rolled back: ${OLD} is current again (was ${NEW}).`);
    expect(await versionLines(home, MEMORY_OFF)).toEqual([`gentle-shell ${SHELL}`, `pi ${OLD_PI}`]);

    // The newest pair is still installed (rollback kept it): update checks it and switches to it, installing nothing.
    const kept = await fs.stat(join(prefix, "versions", NEW));
    const marker = await fs.stat(join(prefix, "versions", NEW, ".gentle-shell-version"));
    // Its engine logs how it is asked and, with GSS_OLD_ENGINE, stands in for one from before serve, and from before
    // ensure-runtime answered the launcher script, its functions and its Pi's --version too: serve is unknown to it,
    // and it drops --launcher-script, --functions and --pi-version (as such an engine ignores them), so the switch
    // must ask it one command per start.
    const engineDir = join(prefix, "versions", NEW, ".gentle-shell");
    const asked = join(home, "engine-asked.log");
    // Each start's arguments, then the launcher check's two variables (as two more words).
    const logsItsStart = [
      `const seen = [...process.argv.slice(2), "verify=" + (process.env.GENTLE_SHELL_VERIFY_VERSION || ""), "checked=" + (process.env.GENTLE_SHELL_PI_CHECKED || "")];`,
      `require("node:fs").appendFileSync(${JSON.stringify(asked)}, JSON.stringify(seen) + "\\n");`,
    ];
    await fs.rename(join(engineDir, "engine.cjs"), join(engineDir, "engine-real.cjs"));
    await fs.writeFile(
      join(engineDir, "engine.cjs"),
      [
        '"use strict";',
        ...logsItsStart,
        'if (process.env.GSS_OLD_ENGINE) process.argv = process.argv.filter((a) => !["--launcher-script", "--functions", "--pi-version"].includes(a)).map((a) => (a === "serve" ? "serve-unknown-then" : a));',
        'require("./engine-real.cjs");',
        "",
      ].join("\n"),
    );
    // The launcher runs the launch part, which answers the launcher check: it logs the same way, then runs the real
    // part as launch.cjs itself (the part runs only under that name). Its engine file is the stand-in above, which has
    // no launch part, so ensure-runtime leaves this one in place.
    await fs.rename(join(engineDir, "launch.cjs"), join(engineDir, "launch-real.cjs"));
    await fs.writeFile(
      join(engineDir, "launch.cjs"),
      [
        '"use strict";',
        ...logsItsStart,
        'const vm = require("node:vm");',
        'const real = require("node:fs").readFileSync(require("node:path").join(__dirname, "launch-real.cjs"), "utf8");',
        'vm.compileFunction(real, ["exports", "require", "module", "__filename", "__dirname"], { filename: __filename, importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER })',
        "  .call(module.exports, module.exports, require, module, __filename, __dirname);",
        "",
      ].join("\n"),
    );
    const reuse = await gs(home, ["update"], { ...MEMORY_OFF, GSS_OLD_ENGINE: "1" });
    expect(reuse.stderr).toBe("");
    expect(reuse.code).toBe(0);
    expect(reuse.stdout).toContain(
      `Gentle Shell ${SHELL} with Pi ${newest} is already installed in versions/${NEW}; switching to it without installing it again...`,
    );
    expect(reuse.stdout).not.toContain("Warning:");
    expect(reuse.stdout).not.toContain("Installing");
    expect(reuse.stdout).toContain(`Gentle Shell ${SHELL} with Pi ${newest} is now current (was ${OLD}).`);
    expect(await versionLines(home, MEMORY_OFF)).toEqual([`gentle-shell ${SHELL}`, `pi ${newest}`]);
    expect(await versions(home)).toEqual([NEW, OLD].sort());
    // The same folder and the same final marker: pnpm did not run in it again.
    expect((await fs.stat(join(prefix, "versions", NEW))).ino).toBe(kept.ino);
    expect((await fs.stat(join(prefix, "versions", NEW, ".gentle-shell-version"))).mtimeMs).toBe(marker.mtimeMs);
    // serve was refused; ensure-runtime was asked for the launcher too, answered without it, and launcher-script was asked on its own.
    const calls = (await fs.readFile(asked, "utf8"))
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as string[]);
    const internal = calls.filter((args) => args[0] === "--gentle-shell-engine-internal").map((args) => args.slice(1));
    expect(internal.find((args) => args[0] === "ensure-runtime")).toEqual(expect.arrayContaining(["--launcher-script", "--functions", "--pi-version"]));
    expect(internal.map((args) => args[0])).toEqual(["serve", "ensure-runtime", "functions", "launcher-script", "ensure-launcher"]);
    // The launcher check ran once, and (not told the Pi was checked) ran that Pi's own --version itself.
    expect(calls.filter((args) => args.includes(`verify=${NEW}`))).toEqual([["--gentle-shell-engine", "--version", `verify=${NEW}`, "checked="]]);

    // Today's engine: started once for steps 4-6 (serve answers its functions and launcher, then its Engram and its
    // Pi's --version while its launcher is checked, then writes that launcher after the switch).
    expect((await gs(home, ["upgrade", "--rollback"], MEMORY_OFF)).code).toBe(0);
    await fs.rm(asked);
    const today = await gs(home, ["update"], MEMORY_OFF);
    expect(today.stderr).toBe("");
    expect(today.code).toBe(0);
    expect(today.stdout).toContain(`Gentle Shell ${SHELL} with Pi ${newest} is now current (was ${OLD}).`);
    const now = (await fs.readFile(asked, "utf8"))
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as string[]);
    expect(now.map((args) => args.slice(0, 2))).toEqual([
      ["--gentle-shell-engine-internal", "serve"],
      ["--gentle-shell-engine", "--version"],
    ]);
    // The launcher check was told that this version's Pi already answered, so it did not start it again.
    expect(now[1]!.slice(-2)).toEqual([`verify=${NEW}`, `checked=${NEW}`]);
  });

  it("--all sends update --extensions to Pi, also when the Pi update fails, and leaves pinned extensions pinned", async () => {
    const [home, newest] = await Promise.all([installOld(), latest]);
    const NEW = versionId(SHELL, newest);
    const prefix = join(home, ".gentle-shell");
    const settingsFile = join(prefix, "agent", "settings.json");
    const pinned = ["npm:some-pinned-extension@1.0.0"];
    const settings = JSON.parse(await fs.readFile(settingsFile, "utf8").catch(() => "{}")) as Record<string, unknown>;
    await fs.writeFile(settingsFile, JSON.stringify({ ...settings, packages: pinned }, null, 2));

    // The Pi update fails (the registry Pi comes from cannot be reached): Pi still updates the extensions, exit 1.
    const npmrcFile = join(prefix, "pnpm", "config", "npmrc");
    const npmrc = await fs.readFile(npmrcFile, "utf8");
    await fs.writeFile(npmrcFile, `${npmrc}@earendil-works:registry=http://127.0.0.1:9/\n`);
    const failed = await gs(home, ["update", "--all"], MEMORY_OFF);
    expect(failed.code).toBe(1);
    expect(failed.stderr.split("\n").filter((l) => l.startsWith("gentle-shell:"))).toHaveLength(1);
    expect(failed.stdout).toContain("Packages are already up to date");
    expect(await versions(home)).toEqual([OLD]);
    await fs.writeFile(npmrcFile, npmrc);

    // self with --extensions: the Pi update, then Pi's extension update with the new Pi.
    const up = await gs(home, ["update", "pi", "--extensions"], MEMORY_OFF);
    expect(up.code, up.stdout + up.stderr).toBe(0);
    const lines = up.stdout.split("\n");
    const switched = lines.findIndex((l) => l.includes(`Gentle Shell ${SHELL} with Pi ${newest} is now current (was ${OLD})`));
    const extensions = lines.indexOf("Packages are already up to date");
    expect(switched).toBeGreaterThanOrEqual(0);
    expect(extensions).toBeGreaterThan(switched);
    expect(await versionLines(home, MEMORY_OFF)).toEqual([`gentle-shell ${SHELL}`, `pi ${newest}`]);
    expect(await versions(home)).toEqual([NEW, OLD].sort());
    // Pi's rule: an explicitly pinned extension stays pinned.
    expect((JSON.parse(await fs.readFile(settingsFile, "utf8")) as { packages: unknown }).packages).toEqual(pinned);

    // Already current: --all still sends the extension update.
    const again = await gs(home, ["update", "--all"], MEMORY_OFF);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain("is already current, nothing was changed.");
    expect(again.stdout).toContain("Packages are already up to date");
  });
});
