/**
 * The end-to-end lanes (issue 13), on the host's own single executable built
 * with the fixture pins: the fixtures (verdaccio, the artifact mirror, the
 * stub model) start once; the mirror gets the host's real nodejs.org archive
 * (and the Go zip on Windows), verified against their production pins.
 *
 * For each of two folders (a plain one, and one whose name holds a space,
 * `!`, `%`, `^`, `&`, `(`, `,` and a non-ASCII letter), a throwaway user
 * there (HOME, or USERPROFILE and LOCALAPPDATA) gets the real install of the
 * older fixture release, then `--version` and `-p` against the stub model,
 * upgrade, rollback and self-uninstall --include-shared; then whatever
 * removal the uninstall left to a delayed helper (Windows) is waited for,
 * and the user's folder must be exactly what the test itself wrote, and on
 * Windows the HKCU Path its raw value from before.
 *
 * The install itself: on Windows by the .exe (--no-setup: see NO_SETUP); on macOS and Linux through
 * installers/install.sh piped into sh from a loopback download folder.
 * On Windows, installers/install.ps1 too: through `irm <url> | iex` against
 * a SHA256SUMS that does not match (it must refuse, run nothing, and not
 * close the PowerShell it runs in), and as a scriptblock with arguments for
 * a whole install. Then an offline bundle's launcher (install.cmd on
 * Windows, install.sh elsewhere) from a copy of the bundle in the special
 * folder.
 *
 * Run by the windows-e2e and macos-e2e jobs of .github/workflows/ci.yml with
 * `npx vitest run --config test/lanes/vitest.config.ts`; never collected by
 * `npm test`. On Linux it runs as a proof of the sequence (no delayed
 * removal, no registry there).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { promises as fs } from "node:fs";
import { mkdtempSync, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { Fixtures } from "../support/fixtures";
import { startFixtures } from "../support/fixtures";
import { runCommand } from "../support/proc";
import { testHost } from "../support/host";
import { expectedVersion, firstLines, runLauncher } from "../support/launch";
import { writeStubModelConfig } from "../support/stub-model";
import { treeSnapshot } from "../support/tree";
import { fetchArtifact } from "../../src/install/artifact-fetch";
import { REPO_ROOT } from "../support/paths";
import {
  hostArchivePins,
  LANE_FOLDERS,
  lanePlatform,
  laneTarget,
  laneUser,
  prepareLaneUser,
  sha256File,
  startDownloadSite,
  sumsText,
  waitUntil,
  copyTree,
  type DownloadSite,
  type LaneUser,
} from "./lane";
import { userPathReader, type UserPathReader } from "./user-path";

const platform = lanePlatform();
const target = laneTarget(platform);
const win = platform === "win32";
// Its real path: macOS's temp folder is reached through a link (/var -> /private/var), Windows' by an
// 8.3 short name (RUNNER~1); the launchers report the folder as the system resolves it.
const root = realpathSync.native(mkdtempSync(join(tmpdir(), "gss-lane-")));
let f: Fixtures;
let site: DownloadSite;
let binaryName: string;
const userPath: UserPathReader = userPathReader(platform);

beforeAll(async () => {
  f = await startFixtures({ log: (line) => process.stderr.write(`fixtures: ${line}\n`) });
  if (!f.binary) throw new Error("the lane needs the fixture binary (GSS_FIXTURES_SKIP_BUILD is set)");
  // The host's real archives, verified against their pins on the way in, where the mirror serves them.
  for (const { name, pin } of hostArchivePins(f.pins, target)) {
    const dest = join(f.mirrorRoot, pin.path);
    if (
      await fs.stat(dest).then(
        () => true,
        () => false,
      )
    )
      continue;
    const file = await fetchArtifact(testHost().http, { kind: "official", registry: f.registryUrl }, pin.path, dirname(dest), {
      name,
      sha256: pin.sha256!,
      size: pin.size,
      maxBytes: pin.maxBytes,
    });
    await fs.rename(file, dest);
  }
  binaryName = `gentle-shell-setup-${target}${win ? ".exe" : ""}`;
  const sha256 = await sha256File(f.binary);
  site = await startDownloadSite({
    [binaryName]: { file: f.binary },
    SHA256SUMS: { text: sumsText([{ name: binaryName, sha256 }]) },
    "install.sh": { file: join(REPO_ROOT, "installers", "install.sh") },
    "install.ps1": { file: join(REPO_ROOT, "installers", "install.ps1") },
  });
}, 1_500_000);

afterAll(async () => {
  await site?.close();
  await f?.stop();
  await fs.rm(root, { recursive: true, force: true, maxRetries: 5 }).catch(() => undefined);
});

const older = () => f.releases[0]!;
const latest = () => f.releases[f.releases.length - 1]!;

function launch(user: LaneUser, args: string[], extra: NodeJS.ProcessEnv = {}) {
  return runLauncher(user.launcher, args, { env: { ...user.env, ...extra }, cwd: user.home, timeoutMs: 300_000 });
}

/**
 * Windows installs skip the setup step: the fixture gentle-pi's gentle-ai is
 * a POSIX sh script (test/support/gentle-pi), which Windows cannot start;
 * the real one is an .exe its build makes with our Go. Everything else runs.
 */
const NO_SETUP = win ? ["--no-setup"] : [];

/** The install of `release` for `user`: the .exe on Windows, install.sh from the download site elsewhere. */
function install(user: LaneUser, release: string) {
  if (win) {
    return runCommand(f.binary!, ["install", "--yes", "--source", f.mirrorUrl, "--release", release, ...NO_SETUP], {
      env: user.env,
      cwd: user.home,
      timeoutMs: 600_000,
    });
  }
  return runCommand("sh", ["-c", 'curl -fsSL "$1/install.sh" | sh -s -- --yes --source "$2" --release "$3"', "sh", site.url, f.mirrorUrl, release], {
    env: { ...user.env, GENTLE_SHELL_SETUP_DOWNLOAD: site.url },
    cwd: user.home,
    timeoutMs: 600_000,
  });
}

/** self-uninstall --yes --include-shared, then the delayed removal (Windows) until the user's folder is back to `before`. */
async function uninstallAndWait(user: LaneUser, before: Awaited<ReturnType<typeof treeSnapshot>>) {
  const r = await launch(user, ["self-uninstall", "--yes", "--include-shared"]);
  expect(r.code, r.stdout + r.stderr).toBe(0);
  // Windows: node.exe and the launcher go after this process exits (scheduleWindowsRemoval); ~60 s at most.
  // A file the helper removes while the folder is read is no answer yet.
  const settled = async () => JSON.stringify(await treeSnapshot(user.base).catch(() => null)) === JSON.stringify(before);
  await waitUntil(settled, win ? 120_000 : 5_000);
  expect(await treeSnapshot(user.base)).toEqual(before);
  return r;
}

describe.each(Object.entries(LANE_FOLDERS))("the whole sequence in the %s folder", (_label, folder) => {
  it("installs, answers --version and -p, upgrades, rolls back and uninstalls itself, leaving nothing of ours", async () => {
    const user = laneUser(platform, join(root, folder));
    await prepareLaneUser(user, f.registryUrl);
    const before = await treeSnapshot(user.base);
    const pathBefore = await userPath.read();

    site.requests.length = 0;
    const installed = await install(user, older().shell);
    expect(installed.code, installed.stdout + installed.stderr).toBe(0);
    expect(installed.stdout).toContain(`gentle-pi ${older().shell} with Pi ${older().pi} installed in versions/${older().id}`);
    if (win) expect(await userPath.read()).not.toEqual(pathBefore);
    // Elsewhere install.sh fetched the binary and SHA256SUMS from the download folder.
    else expect(site.requests).toEqual(expect.arrayContaining(["install.sh", "SHA256SUMS", binaryName]));

    const version = await launch(user, ["--version"]);
    expect(version.code, version.stdout + version.stderr).toBe(0);
    expect(firstLines(version.stdout, 2)).toEqual(expectedVersion(older()));

    await writeStubModelConfig(user.agentDir, `${f.modelUrl}/v1`);
    const answer = await launch(user, ["-p", "say hi"], { PI_OFFLINE: "1", PI_TELEMETRY: "0", ENGRAM_STARTUP_POLICY: "disabled" });
    expect(answer.code, answer.stderr).toBe(0);
    expect(answer.stdout.trim()).toBe("Hello from the stub model.");

    const up = await launch(user, ["upgrade"]);
    expect(up.code, up.stdout + up.stderr).toBe(0);
    expect(up.stdout).toContain(`Gentle Shell ${latest().shell} with Pi ${latest().pi} is now current (was ${older().id})`);
    expect(firstLines((await launch(user, ["--version"])).stdout, 2)).toEqual(expectedVersion(latest()));

    const back = await launch(user, ["upgrade", "--rollback"]);
    expect(back.code, back.stdout + back.stderr).toBe(0);
    expect(back.stdout).toContain(`Rolled back: ${older().id} is current again (was ${latest().id}).`);
    expect(firstLines((await launch(user, ["--version"])).stdout, 2)).toEqual(expectedVersion(older()));

    await uninstallAndWait(user, before);
    expect(await userPath.read()).toEqual(pathBefore);
  });
});

describe("an offline bundle's launcher, from a copy of the bundle in the special folder", () => {
  it(`${win ? "install.cmd" : "install.sh"} installs from the folder it is in; self-uninstall leaves nothing`, async () => {
    const maker = laneUser(platform, join(root, "bundle maker"));
    await prepareLaneUser(maker, f.registryUrl);
    const made = join(root, "made-bundle");
    const r = await runCommand(f.binary!, ["bundle", "--out", made, "--source", f.mirrorUrl, "--release", latest().shell], {
      env: maker.env,
      cwd: maker.home,
      timeoutMs: 600_000,
    });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const stick = join(root, LANE_FOLDERS.special, "stick");
    await copyTree(made, stick);

    const user = laneUser(platform, join(root, LANE_FOLDERS.special, "bundle user"));
    await prepareLaneUser(user, f.registryUrl);
    const before = await treeSnapshot(user.base);
    const pathBefore = await userPath.read();
    const launcher = win ? join(stick, "install.cmd") : join(stick, "install.sh");
    const ran = win
      ? await runLauncher(launcher, ["--yes", ...NO_SETUP], { env: user.env, cwd: user.home, timeoutMs: 600_000 })
      : await runCommand("sh", [launcher, "--yes"], { env: user.env, cwd: user.home, timeoutMs: 600_000 });
    expect(ran.code, ran.stdout + ran.stderr).toBe(0);
    expect(ran.stdout).toContain(`gentle-pi ${latest().shell} with Pi ${latest().pi} installed in versions/${latest().id} offline`);
    expect(await fs.readFile(join(user.prefix, "config", "install-source"), "utf8")).toBe(`${stick}\n`);
    expect(firstLines((await launch(user, ["--version"])).stdout, 2)).toEqual(expectedVersion(latest()));

    await uninstallAndWait(user, before);
    expect(await userPath.read()).toEqual(pathBefore);
  });
});

// Windows only: registered there and nowhere else (install.sh's counterpart is the sequence above).
if (win)
  describe("installers/install.ps1 from a loopback download folder", () => {
    const powershell = (command: string, env: NodeJS.ProcessEnv) =>
      runCommand("powershell.exe", ["-NoLogo", "-NoProfile", "-NonInteractive", "-ExecutionPolicy", "Bypass", "-Command", command], {
        env,
        timeoutMs: 600_000,
      });

    it("irm | iex refuses a binary SHA256SUMS does not vouch for, runs nothing, and does not close the PowerShell it runs in", async () => {
      const user = laneUser(platform, join(root, LANE_FOLDERS.special, "ps1 refused"));
      await prepareLaneUser(user, f.registryUrl);
      const before = await treeSnapshot(user.base);
      const good = sumsText([{ name: binaryName, sha256: await sha256File(f.binary!) }]);
      site.set("SHA256SUMS", { text: sumsText([{ name: binaryName, sha256: "0".repeat(64) }]) });
      try {
        const r = await powershell("try { irm $env:GSS_PS1_URL | iex } catch { 'refused: ' + $_.Exception.Message }; 'still here'", {
          ...user.env,
          GSS_PS1_URL: `${site.url}/install.ps1`,
          GENTLE_SHELL_SETUP_DOWNLOAD: site.url,
          GENTLE_SHELL_YES: "1",
        });
        expect(r.stdout).toMatch(/refused: \S/);
        expect(r.stdout.trimEnd().split(/\r?\n/).pop()).toBe("still here");
      } finally {
        site.set("SHA256SUMS", { text: good });
      }
      expect(await treeSnapshot(user.base)).toEqual(before);
    });

    it("run as a scriptblock with arguments, it downloads and checks the binary and installs; self-uninstall leaves nothing", async () => {
      const user = laneUser(platform, join(root, LANE_FOLDERS.special, "ps1 user"));
      await prepareLaneUser(user, f.registryUrl);
      const before = await treeSnapshot(user.base);
      const pathBefore = await userPath.read();
      site.requests.length = 0;
      const r = await powershell("& ([scriptblock]::Create((irm $env:GSS_PS1_URL))) --source $env:GSS_MIRROR --release $env:GSS_RELEASE --no-setup", {
        ...user.env,
        GSS_PS1_URL: `${site.url}/install.ps1`,
        GSS_MIRROR: f.mirrorUrl,
        GSS_RELEASE: latest().shell,
        GENTLE_SHELL_SETUP_DOWNLOAD: site.url,
        GENTLE_SHELL_YES: "1",
      });
      expect(r.code, r.stdout + r.stderr).toBe(0);
      expect(site.requests).toEqual(expect.arrayContaining(["install.ps1", "SHA256SUMS", binaryName]));
      expect(firstLines((await launch(user, ["--version"])).stdout, 2)).toEqual(expectedVersion(latest()));
      await uninstallAndWait(user, before);
      expect(await userPath.read()).toEqual(pathBefore);
    });
  });
