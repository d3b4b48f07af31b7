/**
 * The steps an upgrade and an update share once a new version folder is
 * installed (spec: "gentle-shell upgrade in a bundled install", steps 4-7):
 * the version's own module, its launcher's --version with
 * GENTLE_SHELL_VERIFY_VERSION, the switch of current with its own launcher,
 * and pruning to two versions. A failure before the switch leaves current as
 * it was and removes the folder when this command installed it.
 */
import { promises as fs, realpathSync } from "node:fs";
import { join } from "pathe";
import { isWithin, type Layout } from "../core/layout";
import { launcherCheckEnvironment, type Env } from "../core/environment";
import { ensureRealFolder } from "../io/files";
import { run } from "../io/process";
import { stagingPath } from "../io/staging";
import { activateVersion, pruneVersions, readCurrent } from "../install/activate";
import { acquireInstallLock, type Lock } from "../install/lock";
import { ENGINE_PATH } from "../install/engine-start";
import { ENGINE_FLAG, ENGINE_NODE_OPTIONS, INTERNAL_FLAG, PI_CHECKED_VARIABLE } from "../core/engine-flags";
import { MODULE_FUNCTIONS } from "./internal";
import { piVersionProblem, type PiVersionAnswer } from "./pi-version";

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

export async function callModule(layout: Layout, engine: string, args: string[], env: Env): Promise<Record<string, unknown>> {
  const result = await run(layout.node, [...ENGINE_NODE_OPTIONS, engine, INTERNAL_FLAG, ...args], { env, timeoutMs: 20 * 60_000 });
  const last = result.stdout.trim().split("\n").pop() ?? "";
  if (result.code !== 0) throw new Error(`${args[0]} of that version failed: ${(result.stderr.trim() || last).slice(-400)}`);
  try {
    return JSON.parse(last) as Record<string, unknown>;
  } catch {
    throw new Error(`${args[0]} of that version answered ${JSON.stringify(last.slice(0, 200))}`);
  }
}

/**
 * Step 5: the launcher the new version writes, in a staging file under tmp/, asked for --version.
 * `given` is the script its ensure-runtime already answered; an engine that predates that answer is asked again.
 */
async function runVersionLauncher(layout: Layout, engine: string, moduleEnv: Env, checkEnv: Env, given: unknown) {
  const made = isLauncherScript(given) ? given : await callModule(layout, engine, ["launcher-script"], moduleEnv);
  if (typeof made.script !== "string" || typeof made.name !== "string") throw new Error("that version's module wrote no launcher; nothing was changed");
  await ensureRealFolder(layout.tmp, 0o700);
  const file = stagingPath(layout.tmp, "launcher-check", { label: made.name.replace(/[^A-Za-z.-]/g, "") });
  await fs.writeFile(file, made.script, { mode: 0o700, flag: "wx" });
  try {
    return await run(file, ["--version"], { env: checkEnv, timeoutMs: 120_000 });
  } finally {
    await fs.rm(file, { force: true });
  }
}

function isLauncherScript(value: unknown): value is { script: string; name: string } {
  const v = value as { script?: unknown; name?: unknown } | null;
  return typeof v === "object" && v !== null && typeof v.script === "string" && typeof v.name === "string";
}

function isPiVersionAnswer(value: unknown): value is PiVersionAnswer {
  const v = value as Partial<PiVersionAnswer> | null;
  return (
    typeof v === "object" && v !== null && typeof v.reported === "string" && typeof v.stderr === "string" && (typeof v.code === "number" || v.code === null)
  );
}

/** The module must offer every function the upgrade uses (step 4); returns the engine's own version. */
export async function checkModule(layout: Layout, engine: string, env: Env): Promise<string> {
  return moduleVersion(await callModule(layout, engine, ["functions"], env).catch(() => null));
}

/** A module's answer about its functions (to `functions`, or to ensure-runtime --functions): the engine's version, or which function is missing. */
function moduleVersion(answer: Record<string, unknown> | null): string {
  const functions = Array.isArray(answer?.functions) ? (answer!.functions as unknown[]) : [];
  for (const name of MODULE_FUNCTIONS) {
    if (!functions.includes(name)) throw new Error(`that version's module has no ${name}; nothing was changed`);
  }
  return typeof answer?.engine === "string" ? answer.engine : "unknown";
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
  /** The remembered (or given) install source, for the version's ensure-runtime. */
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
  out: (line: string) => void;
}

/** Steps 4-7 for the version folder `id`; throws (current unchanged) when any check before the switch fails. */
export async function verifyAndSwitch(options: SwitchOptions): Promise<void> {
  const { layout, env, npmrc, sourceArg, id, shell, pi, previous, ours, out } = options;
  let switched = false;
  try {
    // 4. The new version's own module, from inside its folder, started once for steps 4 and 5: its functions,
    // its runtime and Engram, the launcher it writes, and (at the same time as Engram) its Pi's own --version.
    const engine = await versionModule(layout, id);
    const moduleEnv = launcherCheckEnvironment(layout, { env, npmrc });
    const runtime = await callModule(
      layout,
      engine,
      [
        "ensure-runtime",
        "--engram",
        "--functions",
        "--pi-version",
        ...(layout.platform === "win32" ? [] : ["--launcher-script"]),
        ...(sourceArg ? ["--source", sourceArg] : []),
      ],
      moduleEnv,
    ).catch(async (error: Error) => {
      // A module without ensure-runtime says so as the check of its functions does.
      await checkModule(layout, engine, moduleEnv);
      throw error;
    });
    // An engine older than --functions answers without them: asked once more.
    const engineVersion = "functions" in runtime ? moduleVersion(runtime) : await checkModule(layout, engine, moduleEnv);
    out(`Using the engine of ${options.label} (gentle-shell-setup ${engineVersion})...`);
    const piProblem = isPiVersionAnswer(runtime.piVersion) ? piVersionProblem({ id, pi }, runtime.piVersion) : null;
    if (piProblem)
      throw new Error(
        `the launcher check of Gentle Shell ${shell} with Pi ${pi} failed (${piProblem}), expected gentle-shell ${shell} / pi ${pi}; nothing was changed`,
      );
    const node = typeof runtime.node === "string" ? runtime.node : layout.node;
    // 5. Its launcher reports exactly the pair, with the version's Node and exact Pi: the launcher
    // that version writes, run from tmp/ before anything switches, with GENTLE_SHELL_VERIFY_VERSION
    // (and, when the module already ran its Pi, GENTLE_SHELL_PI_CHECKED, so that Pi is not started twice).
    // (Windows: a .cmd cannot be started without cmd.exe's quoting, so there the version's engine is asked directly.)
    const checkEnv = { ...moduleEnv, GENTLE_SHELL_VERIFY_VERSION: id, ...(isPiVersionAnswer(runtime.piVersion) ? { [PI_CHECKED_VARIABLE]: id } : {}) };
    const check =
      layout.platform === "win32"
        ? await run(node, [...ENGINE_NODE_OPTIONS, engine, ENGINE_FLAG, "--version"], { env: checkEnv, timeoutMs: 120_000 })
        : await runVersionLauncher(layout, engine, moduleEnv, checkEnv, runtime.launcher);
    const lines = check.stdout.split(/\r?\n/);
    if (check.code !== 0 || lines[0] !== `gentle-shell ${shell}` || lines[1] !== `pi ${pi}`) {
      throw new Error(
        `the launcher check of Gentle Shell ${shell} with Pi ${pi} failed (${checkAnswer(check)}), expected gentle-shell ${shell} / pi ${pi}; nothing was changed`,
      );
    }
    // 6. Switch, then the version's own launcher; switch back if it cannot be written.
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
}
