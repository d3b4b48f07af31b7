/**
 * The GitHub Action (issue 42, part 1): `uses: Gentleman-Programming/gentle-shell-setup@v1`,
 * described by action.yml at the repository root. Bundled by build/action.mjs into ONE
 * committed file, installers/action/dist/index.cjs, which the runner's own Node runs.
 *
 * Decisions:
 * - The binary comes through the users' own one-liner: this checkout's installers/install.sh
 *   (installers/install.ps1 on Windows). It downloads the gentle-shell-setup binary and the
 *   release's SHA256SUMS (from GENTLE_SHELL_SETUP_DOWNLOAD when the job sets it, else the
 *   official latest release), checks the one against the other, and runs `gentle-shell-setup
 *   install --yes --no-modify-path`; the binary then checks the release's signed manifest and
 *   every runtime against its compiled-in pins. The action downloads nothing itself.
 * - The release and the source reach the binary as its own knobs, GENTLE_SHELL_RELEASE and
 *   GENTLE_SHELL_SOURCE, so both installers pass them on unquoted and the binary checks them.
 * - No profile is edited (--no-modify-path); the launcher's folder goes to the job's PATH
 *   through core.addPath (GITHUB_PATH).
 * - The prefix: the install puts it at $HOME/.gentle-shell (Windows: %LOCALAPPDATA%\gentle-shell)
 *   and its launcher records that absolute path, so it cannot be copied elsewhere afterwards.
 *   The install therefore runs with HOME (USERPROFILE, LOCALAPPDATA) set to a folder of the
 *   action's own, and with NPM_CONFIG_USERCONFIG still naming the user's ~/.npmrc (the registry
 *   and its credentials). For an exact `version` that folder IS the tool-cache folder
 *   (tc.cacheDir of an empty folder makes it; tc.find, keyed by the release and the target,
 *   finds it again), so nothing is ever moved. A failed install removes the folder again, and a
 *   found folder is used only when its launcher answers --version with the asked release.
 * - `latest` is not cached: the release it names is known only to the binary, once it has asked
 *   the registry, and the action makes no request of its own to learn it first. Its prefix lives
 *   in RUNNER_TEMP, for this job only. Pin `version` to get the cache.
 * - The update policy is the environment knob GENTLE_SHELL_UPDATES, exported for the job's later
 *   steps (core.exportVariable): `off` unless asked. Not the launcher's config.json, which the
 *   cache would keep across runs that ask for another policy.
 * - The outputs are the first two lines of `gentle-shell --version`: `gentle-shell X` and `pi Y`.
 */
import { execFile, spawn } from "node:child_process";
import { mkdtempSync, promises as fs } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import * as core from "@actions/core";
import * as tc from "@actions/tool-cache";

const TOOL = "gentle-shell";
/** gentle-shell-setup's exit code for "installed, but the setup step failed". */
const SETUP_FAILED = 3;
const UPDATES = ["on", "notify", "off"];
/** An exact version, as the binary's --release takes it (src/core/versions.ts): no range, tag or `v`. */
const EXACT = /^[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$/;

interface Inputs {
  version: string | null;
  source: string;
  updates: string;
}

class InputError extends Error {}

function readInputs(): Inputs {
  const version = core.getInput("version").trim() || "latest";
  if (version !== "latest" && !EXACT.test(version)) {
    throw new InputError(`the version input takes an exact Gentle Shell version such as 4.1.0, or latest; not ${JSON.stringify(version)}`);
  }
  const updates = (core.getInput("updates").trim() || "off").toLowerCase();
  if (!UPDATES.includes(updates)) throw new InputError(`the updates input takes on, notify or off; not ${JSON.stringify(updates)}`);
  return { version: version === "latest" ? null : version, source: core.getInput("source").trim(), updates };
}

/** This runner's target, as the release names its binaries (and the cache's arch key). */
function target(): string {
  const os = process.platform === "win32" ? "win" : process.platform;
  return `${os}-${process.arch}`;
}

/** Where the install puts the prefix when its home is `home` (src/core/layout.ts, src/install/windows-private). */
function prefixOf(home: string): string {
  return process.platform === "win32" ? join(home, "AppData", "Local", "gentle-shell") : join(home, ".gentle-shell");
}

function launcherOf(home: string): string {
  return join(prefixOf(home), "bin", process.platform === "win32" ? "gentle-shell.cmd" : "gentle-shell");
}

/** The user's npm settings, named explicitly: the install runs with another HOME. */
function userNpmrc(): string {
  const set = Object.entries(process.env).find(([k, v]) => k.toLowerCase() === "npm_config_userconfig" && v);
  return set?.[1] ?? join(homedir(), ".npmrc");
}

/** The first two lines of `gentle-shell --version`, or null when the launcher does not answer them. */
async function versions(launcher: string): Promise<{ shell: string; pi: string } | null> {
  const [file, args] = process.platform === "win32" ? ["cmd.exe", ["/d", "/s", "/c", `"${launcher}" --version`]] : [launcher, ["--version"]];
  const stdout = await new Promise<string | null>((resolve) => {
    execFile(file, args, { windowsVerbatimArguments: true, timeout: 120_000 }, (error, out) => resolve(error ? null : out));
  });
  const lines = (stdout ?? "").split(/\r?\n/);
  const shell = /^gentle-shell (\S+)$/.exec(lines[0] ?? "")?.[1];
  const pi = /^pi (\S+)$/.exec(lines[1] ?? "")?.[1];
  return shell && pi ? { shell, pi } : null;
}

/**
 * Windows: the install accepts %LOCALAPPDATA% only when no other account may write to it (src/install/windows-private/rule.ts),
 * and a folder under C:\hostedtoolcache or RUNNER_TEMP inherits write rights for every signed-in user. The home folder gets
 * the DACL the install gives its own folder: this user, SYSTEM and Administrators, nothing inherited.
 */
async function privateFolder(folder: string): Promise<void> {
  const user = process.env.USERDOMAIN ? `${process.env.USERDOMAIN}\\${process.env.USERNAME}` : (process.env.USERNAME ?? "");
  const grants = [user, "*S-1-5-18", "*S-1-5-32-544"].flatMap((who) => ["/grant:r", `${who}:(OI)(CI)F`]);
  const code = await new Promise<number>((resolve, reject) => {
    const child = spawn("icacls.exe", [folder, "/inheritance:r", ...grants], { stdio: ["ignore", "ignore", "inherit"] });
    child.on("error", reject);
    child.on("close", (c) => resolve(c ?? 1));
  });
  if (code !== 0) throw new InputError(`could not make ${folder} private to this user (icacls exit ${code})`);
}

/** The repository's own installer for this system, run with HOME set to `home`; its output goes to the log. */
async function runInstaller(home: string, inputs: Inputs): Promise<void> {
  const installers = join(__dirname, "..", "..");
  const win = process.platform === "win32";
  const npmrc = userNpmrc();
  // The inputs decide the release and the source, whatever the job's environment says.
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const key of Object.keys(env)) if (/^(npm_config_userconfig|GENTLE_SHELL_(RELEASE|SOURCE|VERSION))$/i.test(key)) delete env[key];
  Object.assign(env, { HOME: home, NPM_CONFIG_USERCONFIG: npmrc, CI: "true" });
  if (inputs.version) env.GENTLE_SHELL_RELEASE = inputs.version;
  if (inputs.source) env.GENTLE_SHELL_SOURCE = inputs.source;
  if (win) Object.assign(env, { USERPROFILE: home, LOCALAPPDATA: join(home, "AppData", "Local") });
  const [file, args] = win
    ? [
        "powershell.exe",
        ["-NoLogo", "-NoProfile", "-NonInteractive", "-ExecutionPolicy", "Bypass", "-File", join(installers, "install.ps1"), "-Yes", "-NoModifyPath"],
      ]
    : ["sh", [join(installers, "install.sh"), "--yes", "--no-modify-path"]];
  await fs.mkdir(home, { recursive: true });
  if (win) {
    await privateFolder(home);
    await fs.mkdir(join(home, "AppData", "Local"), { recursive: true });
  }
  const code = await new Promise<number>((resolve, reject) => {
    const child = spawn(file, args, { env, stdio: ["ignore", "inherit", "inherit"] });
    child.on("error", reject);
    child.on("close", (c) => resolve(c ?? 1));
  });
  // 3: installed, and only its last step, gentle-shell setup, failed (src/core/errors.ts EXIT.setupFailed): the install works.
  if (code === SETUP_FAILED) core.warning("Gentle Shell is installed, but its setup step (gentle-shell setup) failed; its own sentence is above");
  else if (code !== 0) throw new InputError(`gentle-shell-setup install failed (exit ${code}); its own sentence is above`);
}

/** An exact release: the tool cache's folder, found again or made and installed into. */
async function cachedInstall(version: string, inputs: Inputs): Promise<{ home: string; fresh: boolean }> {
  const found = tc.find(TOOL, version, target());
  if (found) {
    const home = join(found, "home");
    const known = await versions(launcherOf(home));
    if (known?.shell === version) {
      core.info(`gentle-shell ${version} for ${target()} found in the tool cache (${found}); nothing was installed`);
      return { home, fresh: false };
    }
    core.info(`the tool cache's gentle-shell ${version} (${found}) does not answer --version; installing it again there`);
    await runInstaller(home, inputs);
    return { home, fresh: true };
  }
  // The folder tc.find looks in, made empty: the install writes straight into it, so no absolute path moves.
  const empty = mkdtempSync(join(process.env.RUNNER_TEMP || tmpdir(), "gentle-shell-empty-"));
  const folder = await tc.cacheDir(empty, TOOL, version, target());
  await fs.rm(empty, { recursive: true, force: true });
  const home = join(folder, "home");
  try {
    await runInstaller(home, inputs);
  } catch (error) {
    // Without its folder, tc.find no longer finds the release: the next run installs it again.
    await fs.rm(folder, { recursive: true, force: true });
    throw error;
  }
  return { home, fresh: true };
}

export async function run(): Promise<void> {
  try {
    const inputs = readInputs();
    let home: string;
    if (inputs.version) {
      home = (await cachedInstall(inputs.version, inputs)).home;
    } else {
      const temp = process.env.RUNNER_TEMP || tmpdir();
      home = join(await fs.mkdtemp(join(temp, "gentle-shell-")), "home");
      core.info("version latest: installed for this job only, not cached (set an exact version to cache it)");
      await runInstaller(home, inputs);
    }
    const launcher = launcherOf(home);
    const known = await versions(launcher);
    if (!known) throw new InputError(`${launcher} --version did not answer with gentle-shell and pi versions`);
    if (inputs.version && known.shell !== inputs.version) {
      throw new InputError(`${launcher} reports gentle-shell ${known.shell}, not the asked ${inputs.version}`);
    }
    core.addPath(dirname(launcher));
    core.exportVariable("GENTLE_SHELL_UPDATES", inputs.updates);
    core.setOutput("gentle-shell-version", known.shell);
    core.setOutput("pi-version", known.pi);
    core.info(`gentle-shell ${known.shell} with pi ${known.pi} is on PATH (${dirname(launcher)}); updates: ${inputs.updates}`);
  } catch (error) {
    core.setFailed(error instanceof InputError ? error.message : `the action failed: ${(error as Error).message}`);
  }
}

void run();
