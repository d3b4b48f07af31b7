/**
 * The steps an upgrade and an update share once a new version folder is
 * installed (spec: "gentle-shell upgrade in a bundled install", steps 4-7):
 * the version's own module, its launcher's --version with
 * GENTLE_SHELL_VERIFY_VERSION, the switch of current with its own launcher,
 * and pruning to two versions. A failure before the switch leaves current as
 * it was and removes the folder when this command installed it.
 */
import { promises as fs, realpathSync } from "node:fs";
import { join } from "../core/native-path";
import { isWithin, type Layout } from "../core/layout";
import { launcherCheckEnvironment, type Env } from "../core/environment";
import { ensureRealFolder } from "../io/files";
import { run, type RunResult } from "../io/process";
import { stagingPath } from "../io/staging";
import { activateVersion, pruneVersions, readCurrent } from "../install/activate";
import { acquireInstallLock, type Lock } from "../install/lock";
import { ENGINE_PATH } from "../install/engine-start";
import { engineArgs, PI_CHECKED_VARIABLE } from "../core/engine-flags";
import { callModule, openVersionModule, serveModule, type VersionModule } from "./module-session";
import type { Alongside } from "../install/version-install";
import { piVersionProblem } from "./pi-version";
import { rm } from "../io/locked-retry";
import { stepMark } from "../io/step-times";

/**
 * The install lock for a command that changes versions (upgrade, rollback,
 * update), taken only while current still names `id`, the version this
 * engine resolved before it waited: another gentle-shell-setup that held the
 * lock may have switched current meanwhile, and this command's plan (what to
 * install, what to switch back to) would then be stale.
 */
export async function lockActiveVersion(layout: Layout, id: string, out: (line: string) => void): Promise<Lock> {
  let waitedFor: number | null = null;
  const lock = await acquireInstallLock(layout, 120_000, (pid) => {
    waitedFor = pid;
    out(`Waiting for another gentle-shell-setup (process ${pid}) to finish...`);
  });
  const now = await readCurrent(layout).catch(() => null);
  if (now === id) return lock;
  await lock.release();
  const who = waitedFor === null ? "another gentle-shell-setup" : `another gentle-shell-setup (process ${waitedFor})`;
  throw new Error(`current moved from ${id} to ${now ?? "nothing"} while this command waited for ${who}; nothing was changed, run it again`);
}

/** A version's own engine, only from inside its folder (step 4). */
export async function versionModule(layout: Layout, id: string): Promise<string> {
  const dir = join(layout.versions, id);
  const engine = join(dir, ENGINE_PATH);
  let real: string;
  try {
    real = realpathSync.native(engine);
  } catch {
    throw new Error(`versions/${id} has no engine of its own`);
  }
  // One path rule for every platform (isWithin takes either separator), and never the folder itself.
  const realDir = realpathSync.native(dir);
  if (real === realDir || !isWithin(realDir, real)) throw new Error(`the engine of versions/${id} lies outside its folder`);
  return real;
}

/**
 * Step 5: its launcher's --version, with the version's Node and exact Pi: the
 * launcher that version writes, run from a staging file under tmp/ before
 * anything switches (POSIX; a module that did not answer the script is asked
 * for it). Windows: a .cmd cannot be started without cmd.exe's quoting, so
 * there the version's engine is asked directly.
 */
async function runVersionLauncher(layout: Layout, engine: string, module: VersionModule, moduleEnv: Env, checkEnv: Env): Promise<RunResult> {
  if (layout.platform === "win32") return run(module.node, engineArgs(engine, ["--version"]), { env: checkEnv, timeoutMs: 120_000 });
  const made = module.launcher ?? (await callModule(layout, engine, ["launcher-script"], moduleEnv));
  if (typeof made.script !== "string" || typeof made.name !== "string") throw new Error("that version's module wrote no launcher; nothing was changed");
  await ensureRealFolder(layout.tmp, 0o700);
  const file = stagingPath(layout.tmp, "launcher-check", { label: made.name.replace(/[^A-Za-z.-]/g, "") });
  await fs.writeFile(file, made.script, { mode: 0o700, flag: "wx" });
  try {
    return await run(file, ["--version"], { env: checkEnv, timeoutMs: 120_000 });
  } finally {
    await rm(file, { force: true });
  }
}

/** What a failed launcher check said: its own error (without the "gentle-shell: " of each line), else what it printed. */
function checkAnswer(check: { code: number | null; stdout: string; stderr: string }): string {
  const said = check.stderr
    .split(/\r?\n/)
    .map((line) => line.replace(/^gentle-shell: /, "").trim())
    .filter(Boolean)
    .join(" ")
    .replace(/\.$/, "");
  if (check.code !== 0 && said) return said.slice(0, 300);
  const printed = check.stdout.split(/\r?\n/).slice(0, 2).join(" / ").trim();
  return `it ${check.code === 0 ? "" : `exited ${check.code ?? "on a signal"} and `}reported ${JSON.stringify(printed.slice(0, 300))}`;
}

export interface SwitchOptions {
  layout: Layout;
  env: Env;
  npmrc: string;
  /** The remembered (or given) install source, for the version's own runtime (its module's serve). */
  sourceArg: string | undefined;
  /** The installed version and the exact pair its launcher must report. */
  id: string;
  shell: string;
  pi: string;
  /** The active version, which current switches back to when the launcher cannot be written. */
  previous: string;
  /** True when this command installed the folder (it is removed again on a failure before the switch). */
  ours: boolean;
  /** How the engine is named in the "Using the engine of ..." line. */
  label: string;
  /** The module, when it was started beside pnpm (./module-session.ts besidePnpm). */
  early?: EarlyModule;
  out: (line: string) => void;
}

/** The new version's module started beside pnpm (installVersion's alongside), for verifyAndSwitch to go on with. */
export interface EarlyModule extends Alongside {
  /** The module when it was started and serves; null when it was not started, or predates serve. */
  opened(): Promise<VersionModule | null>;
}

/**
 * Step 4 started while pnpm installs the version (its engine is in place
 * before pnpm runs): the module's start, its runtime and its Engram need
 * nothing pnpm writes. Its Pi and its launcher wait for verifyAndSwitch.
 * A module from before serve is left to verifyAndSwitch: it would check its
 * Pi in the same start.
 */
export function besidePnpm(options: Pick<SwitchOptions, "layout" | "env" | "npmrc" | "sourceArg" | "id">): EarlyModule {
  const { layout, env, npmrc, sourceArg, id } = options;
  let started: Promise<VersionModule | null> | null = null;
  return {
    start() {
      started = (async () => {
        const module = await serveModule(layout, await versionModule(layout, id), launcherCheckEnvironment(layout, { env, npmrc }), sourceArg);
        // Asked now; verifyAndSwitch's own ask gets this same answer.
        module?.engram().catch(() => undefined);
        return module;
      })();
      started.catch(() => undefined);
    },
    async stop() {
      await (await started?.catch(() => null))?.close();
    },
    opened: async () => (started ? await started : null),
  };
}

/**
 * Steps 4-5 with the version's module: Engram (step 4), its Pi's own
 * --version and its launcher's --version (step 5), all at once, as none
 * depends on another. The launcher check is told that Pi is being checked
 * (GENTLE_SHELL_PI_CHECKED), so it does not start that Pi a second time.
 * An older module answered Engram and its Pi in the start that gave its
 * runtime; its launcher then checks its Pi itself when it was not asked.
 */
async function checkVersion(module: VersionModule, engine: string, moduleEnv: Env, options: SwitchOptions): Promise<void> {
  const { layout, id, shell, pi } = options;
  const expected = `expected gentle-shell ${shell} / pi ${pi}; nothing was changed`;
  const checkEnv = { ...moduleEnv, GENTLE_SHELL_VERIFY_VERSION: id, ...(module.answersPi ? { [PI_CHECKED_VARIABLE]: id } : {}) };
  const marked = <T>(work: Promise<T>, mark: string) => work.finally(() => stepMark(mark, options.env));
  const [engramDone, piDone, checkDone] = await Promise.allSettled([
    marked(module.engram(), "switch:engram"),
    marked(module.piVersion(), "switch:pi"),
    marked(runVersionLauncher(layout, engine, module, moduleEnv, checkEnv), "switch:launcher-check"),
  ]);
  if (engramDone.status === "rejected") throw engramDone.reason;
  if (piDone.status === "rejected") throw piDone.reason;
  const piProblem = piDone.value ? piVersionProblem({ id, pi }, piDone.value) : null;
  if (piProblem) throw new Error(`the launcher check of Gentle Shell ${shell} with Pi ${pi} failed (${piProblem}), ${expected}`);
  if (checkDone.status === "rejected") throw checkDone.reason;
  const check = checkDone.value;
  const lines = check.stdout.split(/\r?\n/);
  if (check.code !== 0 || lines[0] !== `gentle-shell ${shell}` || lines[1] !== `pi ${pi}`) {
    throw new Error(`the launcher check of Gentle Shell ${shell} with Pi ${pi} failed (${checkAnswer(check)}), ${expected}`);
  }
}

/** Steps 4-7 for the version folder `id`; throws (current unchanged) when any check before the switch fails. */
export async function verifyAndSwitch(options: SwitchOptions): Promise<void> {
  const { layout, env, npmrc, sourceArg, id, previous, ours, out } = options;
  let switched = false;
  let module: VersionModule | null = null;
  let closing: Promise<void> = Promise.resolve();
  try {
    // 4. The new version's own module, from inside its folder, started once for steps 4-6.
    const engine = await versionModule(layout, id);
    const moduleEnv = launcherCheckEnvironment(layout, { env, npmrc });
    module = (await options.early?.opened()) ?? (await openVersionModule(layout, engine, moduleEnv, { sourceArg, piVersion: true }));
    stepMark("switch:module", env);
    out(`Using the engine of ${options.label} (gentle-shell-setup ${module.engineVersion})...`);
    // 4-5. Its Engram, its Pi and its launcher, checked at once.
    await checkVersion(module, engine, moduleEnv, options);
    stepMark("switch:checked", env);
    // 6. Switch, then the version's own launcher; switch back if it cannot be written.
    await activateVersion(layout, id);
    switched = true;
    stepMark("current:switched", env);
    try {
      await module.ensureLauncher();
    } catch (error) {
      await activateVersion(layout, previous);
      switched = false;
      throw new Error(`the launcher could not be written (${(error as Error).message}); current is back on ${previous}`);
    }
    stepMark("switch:launcher", env);
    // It was asked everything: it exits while the older versions are pruned.
    closing = module.close();
  } catch (error) {
    // The module is done before its folder may go (also one started beside pnpm that this never reached).
    await module?.close().catch(() => undefined);
    await options.early?.stop();
    if (!switched && ours && (await readCurrent(layout).catch(() => null)) !== id) {
      await rm(join(layout.versions, id), { recursive: true, force: true });
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
  stepMark("switch:pruned", env);
  await closing;
}
