/**
 * gentle-shell upgrade and upgrade --rollback in a bundled install (spec:
 * "gentle-shell upgrade in a bundled install"). The release channel only.
 * Every step before the switch can fail without changing current; a version
 * folder this command installed is removed again when it does.
 */
import { promises as fs, realpathSync } from "node:fs";
import { join } from "pathe";
import { tildifyText, type Layout } from "../core/layout";
import { launcherCheckEnvironment, type Env } from "../core/environment";
import { parseSource } from "../core/source";
import { compareVersions } from "../core/versions";
import { keptPiWarning, offlineRefusal, pairProject, upgradePair } from "../core/upgrade-pair";
import type { Output } from "../core/errors";
import { redactText } from "../core/secrets";
import { ensureRealFolder, lstatOrNull, readTextOrNull, writeFileAtomic } from "../io/files";
import { run } from "../io/process";
import { ownScript } from "../io/self";
import { activateVersion, parseHistory, pruneVersions, readCurrent } from "../install/activate";
import { configuredRegistry } from "../install/registry";
import { stagingPath } from "../io/staging";
import { installBundleVersion } from "../install/offline/install";
import { bundlePackageFiles, openBundle, readBundleRelease } from "../install/offline/open";
import { verifyBundle } from "../install/offline/verify";
import { hostTarget } from "../core/host";
import { acquireInstallLock } from "../install/lock";
import { fetchRelease, latestRelease } from "../install/release";
import { buildPins } from "../pins/index";
import { ENGINE_PATH, installVersion, versionState } from "../install/version";
import { ENGINE_FLAG, ENGINE_NODE_OPTIONS, INTERNAL_FLAG } from "../core/engine-flags";
import { MODULE_FUNCTIONS } from "./internal";
import type { BundledInstall } from "./bundled";

export interface UpgradeArgs {
  rollback: boolean;
  source?: string;
}

export function parseUpgradeArgs(args: string[]): UpgradeArgs | string {
  const out: UpgradeArgs = { rollback: false };
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === "--rollback") out.rollback = true;
    else if (a === "--source") out.source = args[++i];
    else if (a.startsWith("--source=")) out.source = a.slice("--source=".length);
    else if (a === "--channel" || a.startsWith("--channel=")) {
      const value = a === "--channel" ? args[++i] : a.slice("--channel=".length);
      if (value !== "release") return `the ${value} channel is not supported by a bundled install yet; it follows releases`;
    } else return `unknown option ${a}; usage: gentle-shell upgrade [--rollback] [--source <mirror or folder>]`;
  }
  if (out.source === undefined && args.includes("--source")) return "--source needs a value";
  return out;
}

/** Where the installer was told to get artifacts, remembered for upgrades (config/install-source). */
export function sourceFile(layout: Layout): string {
  return join(layout.config, "install-source");
}

export async function rememberSource(layout: Layout, source: string | undefined): Promise<void> {
  const file = sourceFile(layout);
  if (!source || source === "official") {
    if ((await lstatOrNull(file))?.isFile()) await fs.rm(file);
    return;
  }
  await ensureRealFolder(layout.config, 0o700);
  await writeFileAtomic(file, source + "\n", 0o600);
}

/** A version's own engine, only from inside its folder (step 4). */
export async function versionModule(layout: Layout, id: string): Promise<string> {
  const dir = join(layout.versions, id);
  const engine = join(dir, ENGINE_PATH);
  let real: string;
  try {
    real = realpathSync(engine);
  } catch {
    throw new Error(`versions/${id} has no engine of its own`);
  }
  if (!real.startsWith(realpathSync(dir) + "/")) throw new Error(`the engine of versions/${id} lies outside its folder`);
  return real;
}

async function callModule(layout: Layout, engine: string, args: string[], env: Env): Promise<Record<string, unknown>> {
  const result = await run(layout.node, [...ENGINE_NODE_OPTIONS, engine, INTERNAL_FLAG, ...args], { env, timeoutMs: 20 * 60_000 });
  const last = result.stdout.trim().split("\n").pop() ?? "";
  if (result.code !== 0) throw new Error(`${args[0]} of that version failed: ${(result.stderr.trim() || last).slice(-400)}`);
  try {
    return JSON.parse(last) as Record<string, unknown>;
  } catch {
    throw new Error(`${args[0]} of that version answered ${JSON.stringify(last.slice(0, 200))}`);
  }
}

/** Step 5: the launcher the new version writes, in a staging file under tmp/, asked for --version. */
async function runVersionLauncher(layout: Layout, engine: string, env: Env, id: string) {
  const made = await callModule(layout, engine, ["launcher-script"], env);
  if (typeof made.script !== "string" || typeof made.name !== "string") throw new Error("that version's module wrote no launcher; nothing was changed");
  await ensureRealFolder(layout.tmp, 0o700);
  const file = stagingPath(layout.tmp, "launcher-check", { label: made.name.replace(/[^A-Za-z.-]/g, "") });
  await fs.writeFile(file, made.script, { mode: 0o700, flag: "wx" });
  try {
    return await run(file, ["--version"], { env: { ...env, GENTLE_SHELL_VERIFY_VERSION: id }, timeoutMs: 120_000 });
  } finally {
    await fs.rm(file, { force: true });
  }
}

/** The module must offer every function the upgrade uses (step 4); returns the engine's own version. */
async function checkModule(layout: Layout, engine: string, env: Env): Promise<string> {
  const answer = await callModule(layout, engine, ["functions"], env).catch(() => null);
  const functions = Array.isArray(answer?.functions) ? (answer!.functions as unknown[]) : [];
  for (const name of MODULE_FUNCTIONS) {
    if (!functions.includes(name)) throw new Error(`that version's module has no ${name}; nothing was changed`);
  }
  return typeof answer?.engine === "string" ? answer.engine : "unknown";
}

export async function upgradeBundled(install: BundledInstall, env: Env, args: UpgradeArgs, io: Output): Promise<number> {
  const { layout } = install;
  const out = io.out;
  const lock = await acquireInstallLock(layout, 120_000, (pid) => out(`Waiting for another gentle-shell-setup (process ${pid}) to finish...`));
  try {
    return args.rollback ? await rollback(install, env, out) : await upgrade(install, env, args, out);
  } catch (error) {
    io.err(`gentle-shell: ${redactText(tildifyText((error as Error).message, layout.home))}`);
    return 1;
  } finally {
    // Fetched assets and a staged bundle store: ours, under the lock.
    await fs.rm(layout.tmp, { recursive: true, force: true }).catch(() => undefined);
    await lock.release();
  }
}

async function upgrade(install: BundledInstall, env: Env, args: UpgradeArgs, out: (l: string) => void): Promise<number> {
  const { layout } = install;
  const npmrc = (await readTextOrNull(layout.pnpm.npmrc)) ?? "";
  const sourceArg = args.source ?? (await readTextOrNull(sourceFile(layout)))?.trim();
  // An offline bundle names its release: no registry is asked, and pnpm installs from its verified store.
  const bundle = sourceArg && parseSource(sourceArg, "").kind === "folder" ? await openBundle(sourceArg, hostTarget()) : null;
  const registry = bundle ? "" : await configuredRegistry(layout, npmrc, env);
  const source = parseSource(sourceArg, registry);
  // 1. The latest release (or the bundle's) and its two assets, checked by readDistribution.
  const latest = bundle ? bundle.manifest.shell : await latestRelease(registry, npmrc, env);
  if (compareVersions(latest, install.shell) < 0) {
    out(`The ${bundle ? "offline bundle's" : "latest"} Gentle Shell release is ${latest}, older than the active ${install.shell}; nothing was changed.`);
    return 0;
  }
  // A bundle gets the whole check of `gentle-shell-setup verify`, from this installed (trusted) engine.
  if (bundle) {
    const check = await verifyBundle(bundle.root, buildPins());
    if (!check.ok) {
      const more = check.problems.length > 1 ? ` (and ${check.problems.length - 1} more)` : "";
      throw new Error(`the offline bundle is not the signed release it claims: ${check.problems[0]}${more}; nothing was changed`);
    }
  }
  // The signed manifest first; the assets and the release's own engine are checked against it.
  const release = bundle ? await readBundleRelease(bundle, buildPins(), ownScript) : await fetchRelease(source, latest, buildPins(), ownScript);
  const { distribution } = release;
  // The release's pair, or its gentle-pi with the active Pi when that Pi is newer (kept, no release lockfile).
  const pair = upgradePair(install.pi, distribution.manifest);
  const { id, shell, pi } = pair;
  // 2. Already there.
  if (id === install.id) {
    out(`Gentle Shell ${shell} with Pi ${pi} is already current; nothing was changed.`);
    return 0;
  }
  const refusal = bundle ? offlineRefusal(pair) : null;
  if (refusal) throw new Error(refusal);
  if (pair.lockfile === "none") out(keptPiWarning(pair));
  // 3. Install it in place beside the active version.
  out(
    `Installing Gentle Shell ${shell} with Pi ${pi}${bundle ? " from the offline bundle" : ""} (signature verified${release.engineDownloaded ? "; it brings its own engine" : ""})...`,
  );
  const go = layout.platform === "win32";
  const installed = bundle
    ? (await installBundleVersion({ layout, bundle, release, packages: await bundlePackageFiles(bundle, release, hostTarget()), env, go })).result
    : await installVersion({ layout, distribution: pairProject(pair, distribution), env, engine: release.engine, go }).catch((error: Error) => {
        // installVersion has removed the folder it claimed; current never moved.
        throw pair.lockfile === "none" ? new Error(`${error.message}; nothing was changed`) : error;
      });
  const ours = installed.status === "installed";
  const previous = install.id;
  let switched = false;
  try {
    // 4. The new version's own module, from inside its folder.
    const engine = await versionModule(layout, id);
    const moduleEnv = launcherCheckEnvironment(layout, { env, npmrc });
    out(`Using the engine of Gentle Shell ${shell} (gentle-shell-setup ${await checkModule(layout, engine, moduleEnv)})...`);
    const runtime = await callModule(layout, engine, ["ensure-runtime", "--engram", ...(sourceArg ? ["--source", sourceArg] : [])], moduleEnv);
    const node = typeof runtime.node === "string" ? runtime.node : layout.node;
    // 5. Its launcher reports exactly the release's pair, with the release's Node and exact Pi: the launcher
    // that version writes, run from tmp/ before anything switches, with GENTLE_SHELL_VERIFY_VERSION only.
    // (Windows: a .cmd cannot be started without cmd.exe's quoting, so there the version's engine is asked directly.)
    const check =
      layout.platform === "win32"
        ? await run(node, [...ENGINE_NODE_OPTIONS, engine, ENGINE_FLAG, "--version"], {
            env: { ...moduleEnv, GENTLE_SHELL_VERIFY_VERSION: id },
            timeoutMs: 120_000,
          })
        : await runVersionLauncher(layout, engine, moduleEnv, id);
    const lines = check.stdout.split(/\r?\n/);
    if (check.code !== 0 || lines[0] !== `gentle-shell ${shell}` || lines[1] !== `pi ${pi}`) {
      throw new Error(
        `the new version reported ${JSON.stringify(lines.slice(0, 2).join(" / ") || check.stderr.trim().slice(0, 300))}, expected gentle-shell ${shell} / pi ${pi}; nothing was changed`,
      );
    }
    // 6. Switch, then the release's own launcher; switch back if it cannot be written.
    await activateVersion(layout, id);
    switched = true;
    try {
      await callModule(layout, engine, ["ensure-launcher"], moduleEnv);
    } catch (error) {
      await activateVersion(layout, previous);
      switched = false;
      throw new Error(`the launcher could not be written (${(error as Error).message}); current is back on ${previous}`);
    }
  } catch (error) {
    if (!switched && ours && (await readCurrent(layout).catch(() => null)) !== id) {
      await fs.rm(join(layout.versions, id), { recursive: true, force: true });
    }
    throw error;
  }
  // 7. Keep the new version and the previous one.
  try {
    const { deleted } = await pruneVersions(layout, 2);
    if (deleted.length) out(`Removed older versions: ${deleted.join(", ")}`);
  } catch (error) {
    out(`Warning: older versions were not pruned (${(error as Error).message}).`);
  }
  out(`Gentle Shell ${shell} with Pi ${pi} is now current (was ${previous}). \`gentle-shell upgrade --rollback\` goes back.`);
  return 0;
}

async function rollback(install: BundledInstall, env: Env, out: (l: string) => void): Promise<number> {
  const { layout } = install;
  const history = parseHistory(await readTextOrNull(layout.history));
  let target: string | null = null;
  for (const id of history) {
    if (id !== install.id && (await versionState(layout, id)).kind === "valid") {
      target = id;
      break;
    }
  }
  if (!target) {
    out("There is no other installed Gentle Shell version to roll back to; nothing was changed.");
    return 1;
  }
  const npmrc = (await readTextOrNull(layout.pnpm.npmrc)) ?? "";
  const moduleEnv = launcherCheckEnvironment(layout, { env, npmrc });
  const sourceArg = (await readTextOrNull(sourceFile(layout)))?.trim();
  const engine = await versionModule(layout, target);
  out(`Using the engine of ${target} (gentle-shell-setup ${await checkModule(layout, engine, moduleEnv)})...`);
  await callModule(layout, engine, ["ensure-runtime", "--engram", ...(sourceArg ? ["--source", sourceArg] : [])], moduleEnv);
  await activateVersion(layout, target);
  try {
    await callModule(layout, engine, ["ensure-launcher"], moduleEnv);
  } catch (error) {
    await activateVersion(layout, install.id);
    throw new Error(`the launcher could not be written (${(error as Error).message}); current is back on ${install.id}`);
  }
  out(`Rolled back: ${target} is current again (was ${install.id}).`);
  return 0;
}
