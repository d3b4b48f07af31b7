/**
 * installVersion (spec: "Ownership rules", Versions and Interrupted installs).
 * A version is installed in place in versions/<shell>-<pi>/ and never renamed
 * afterwards (pnpm's junctions on Windows hold absolute paths). The folder is
 * claimed with mkdir; its marker reads `installing <id> <pid>` until pnpm has
 * run and the installed gentle-pi and Pi match the release exactly; then one
 * rename makes it `<id>`, and only that makes the version valid.
 *
 * A release's pair installs with --frozen-lockfile from its lockfile. A
 * project without one (an upgrade that keeps a newer active Pi) is resolved
 * by pnpm, and gets the same exact check of what was installed.
 */
import { promises as fs } from "node:fs";
import { dirname, join } from "../core/native-path";
import { isMarkedRuntime } from "./runtime/marker";
import { versionId, type Layout } from "../core/layout";
import { distributionFiles, PI_PACKAGE, SHELL_PACKAGE, type VersionProject } from "../core/release-project";
import { offlinePnpmEnvironment, pnpmEnvironment, type Env } from "../core/environment";
import { lstatOrNull, readTextOrNull, writeFileAtomic } from "../io/files";
import { isAlive } from "../io/process";
import { type Echo, outputTail, run, type RunResult } from "../io/process";
import { redactText } from "../core/secrets";
import { ensureOwnDir, removeOwnFolder } from "../io/own-dir";
import { isDiskFull } from "../core/space-need";
import { ENGINE_PATH, ensureEngineFiles } from "./engine-start";
import { stepMark } from "../io/step-times";
import { VERSION_MARKER } from "./version-marker";
import { rename, rm } from "../io/locked-retry";
import { stagingPath, sweepAbandoned } from "../io/staging";

export { VERSION_MARKER };

export type VersionState =
  | { kind: "absent" }
  | { kind: "valid" }
  | { kind: "installing"; pid: number; alive: boolean }
  /** Claimed (mkdir) but killed before its marker landed: empty but for our marker's temporary file. */
  | { kind: "abandoned" }
  | { kind: "foreign"; why: string };

/** The temporary file writeFileAtomic leaves while the marker is written. */
const MARKER_TEMP = /^\.\.gentle-shell-version\.tmp-\d+-[0-9a-f]{8}$/;

/** Classify what stands at versions/<id> (pure given the marker text and stat). */
export function classifyVersionMarker(id: string, marker: string | null, isDir: boolean): VersionState {
  if (!isDir) return { kind: "foreign", why: "it is not a folder" };
  if (marker === null) return { kind: "foreign", why: `it has no ${VERSION_MARKER} marker` };
  const text = marker.replace(/\r?\n$/, "");
  if (text === id) return { kind: "valid" };
  const m = /^installing (\S+) (\d+)$/.exec(text);
  if (m && m[1] === id) return { kind: "installing", pid: Number(m[2]), alive: isAlive(Number(m[2])) };
  return { kind: "foreign", why: `its marker does not name ${id}` };
}

export async function versionState(layout: Layout, id: string): Promise<VersionState> {
  const dir = join(layout.versions, id);
  const stat = await lstatOrNull(dir);
  if (!stat) return { kind: "absent" };
  const markerStat = stat.isDirectory() ? await lstatOrNull(join(dir, VERSION_MARKER)) : null;
  const marker = markerStat?.isFile() ? await readTextOrNull(join(dir, VERSION_MARKER)) : null;
  if (stat.isDirectory() && !markerStat) {
    const entries = await fs.readdir(dir);
    if (entries.every((name) => MARKER_TEMP.test(name))) return { kind: "abandoned" };
  }
  return classifyVersionMarker(id, marker, stat.isDirectory());
}

export interface InstallVersionOptions {
  layout: Layout;
  /** A release's distribution, or a project with no lockfile that pnpm resolves. */
  distribution: VersionProject;
  env: Env;
  /** The engine script written into the version before its final marker. */
  engine: string | Buffer;
  /** Put our Go on PATH (Windows). */
  go?: boolean;
  /**
   * An offline bundle's install: the only registry pnpm knows is this
   * loopback one serving the bundle's tarballs (no scope registry, no
   * credentials); pnpm checks each against the lockfile's integrity.
   */
  offline?: { registry: string };
  /**
   * Work beside pnpm (an upgrade starts the version's own module): started
   * once the version's engine is in its folder, before pnpm runs; stopped,
   * and awaited, before a failed install removes the folder.
   */
  alongside?: Alongside;
}

export interface Alongside {
  start(versionDir: string): void;
  stop(): Promise<void>;
}

export interface InstallVersionOutcome {
  id: string;
  path: string;
  status: "installed" | "reused";
  /** Installed again over a finished version that could not be reused: what was wrong with it. */
  repaired?: string;
}

/**
 * A finished version is reused only when what the launcher runs from it is
 * there (issue 47, item 1): gentle-pi and Pi at their pinned versions, Pi's
 * bin file, and the engine. Else the rerun installs it again.
 */
export async function versionDamage(dir: string, shell: string, pi: string): Promise<string | null> {
  for (const [name, version] of [
    [SHELL_PACKAGE, shell],
    [PI_PACKAGE, pi],
  ] as const) {
    const text = await readTextOrNull(join(dir, "node_modules", name, "package.json")).catch(() => null);
    let pkg: { version?: unknown; bin?: unknown } = {};
    try {
      pkg = text ? (JSON.parse(text) as typeof pkg) : {};
    } catch {
      return `has a ${name} package.json that is not valid JSON`;
    }
    if (pkg.version !== version) return typeof pkg.version === "string" ? `has ${name} ${pkg.version}, not the pinned ${version}` : `has lost ${name}`;
    const bin = typeof pkg.bin === "string" ? pkg.bin : pkg.bin && typeof pkg.bin === "object" ? Object.values(pkg.bin)[0] : null;
    if (name === PI_PACKAGE && typeof bin === "string" && !(await lstatOrNull(join(dir, "node_modules", name, ...bin.split("/"))))?.isFile()) {
      return `has lost ${name}'s ${bin}`;
    }
  }
  if (!(await lstatOrNull(join(dir, ENGINE_PATH)))?.isFile()) return `has lost its engine ${ENGINE_PATH.split("\\").join("/")}`;
  return null;
}

/** `echo` gets pnpm's output as it arrives (a verbose install): the user's choice, apart from what is installed where. */
export async function installVersion(options: InstallVersionOptions, echo?: Echo): Promise<InstallVersionOutcome> {
  const { layout, distribution } = options;
  const { id, shell, pi } = distribution.manifest;
  const dir = join(layout.versions, id);
  const locked = distribution.lockfile !== null;
  if (!locked) {
    // Without a lockfile, package.json is all pnpm goes by: it must be exactly the two pins.
    const expected = distributionFiles({ shell, pi });
    const files = distribution.files;
    if (id !== versionId(shell, pi) || files["package.json"] !== expected["package.json"] || files["pnpm-workspace.yaml"] !== expected["pnpm-workspace.yaml"]) {
      throw new Error(`${id} without a lockfile must be exactly the files of gentle-pi ${shell} with Pi ${pi}`);
    }
    if (options.offline) throw new Error(`${id} has no lockfile, so it cannot be installed offline`);
  }
  if (layout.platform === "win32" && !(options.go && (await pinnedGoThere(layout)))) {
    throw new Error(
      "on Windows a version is installed only with the pinned Go under runtime/go, so gentle-pi never builds with the user's Go; it is not there, so run the installer again",
    );
  }
  await ensureOwnDir(layout.prefix, layout.versions);
  await sweepAbandoned(layout.versions, ["removing"]);
  const state = await versionState(layout, id);
  let repaired: string | undefined;
  if (state.kind === "valid") {
    repaired = (await versionDamage(dir, shell, pi)) ?? undefined;
    if (!repaired) return { id, path: dir, status: "reused" };
    // Moved aside with one rename, so a kill leaves no half version carrying the finished marker.
    const aside = stagingPath(layout.versions, "removing", { label: id });
    await rename(dir, aside);
    stepMark("version:aside", options.env);
    await rm(aside, { recursive: true, force: true });
  }
  if (state.kind === "foreign") {
    throw new Error(
      `versions/${id} exists but ${state.why}: it was not made by gentle-shell-setup and was left as it is. Move it away, then run the installer again.`,
    );
  }
  if (state.kind === "abandoned") await rm(dir, { recursive: true, force: true });
  if (state.kind === "installing") {
    if (state.alive && state.pid !== process.pid) {
      throw new Error(`another installer (process ${state.pid}) is installing versions/${id}; wait for it to finish, then run the installer again`);
    }
    await rm(dir, { recursive: true, force: true });
  }
  // The claim: mkdir fails if another installer got here first.
  await fs.mkdir(dir, { mode: 0o755 });
  try {
    // The marker lands complete (one rename), so a kill at any moment leaves either no marker or a whole one.
    await writeFileAtomic(join(dir, VERSION_MARKER), `installing ${id} ${process.pid}\n`, 0o644);
    stepMark("version:claimed", options.env);
    await fs.writeFile(join(dir, "package.json"), distribution.files["package.json"], { mode: 0o644 });
    await fs.writeFile(join(dir, "pnpm-workspace.yaml"), distribution.files["pnpm-workspace.yaml"], { mode: 0o644 });
    if (distribution.lockfile !== null) await fs.writeFile(join(dir, "pnpm-lock.yaml"), distribution.lockfile, { mode: 0o644 });
    // The engine (verified against the signed manifest) before pnpm, with its start file and its launch part cut
    // out of it, so that what runs it beside pnpm (alongside) need not wait; the final marker still comes last.
    await fs.mkdir(join(dir, ".gentle-shell"), { mode: 0o755 });
    await fs.writeFile(join(dir, ENGINE_PATH), options.engine, { mode: 0o644 });
    await ensureEngineFiles(dir, options.engine);
    options.alongside?.start(dir);
    // pnpm writes its store, cache and state there: real folders of ours, never through a link.
    // On Windows tmp/ too: TEMP and TMP of pnpm's children (Go's build of gentle-pi needs one), removed again after
    // the install. POSIX gives pnpm no TEMP of ours, so a linked tmp/ there is kept and never written through.
    const tmp = layout.platform === "win32" ? [layout.tmp] : [];
    for (const folder of [layout.pnpm.store, layout.pnpm.cache, layout.pnpm.state, layout.pnpm.config, ...tmp]) {
      await ensureOwnDir(layout.prefix, folder, 0o700);
    }
    const npmrc = (await readTextOrNull(layout.pnpm.npmrc)) ?? "";
    let env = pnpmEnvironment(layout, { env: options.env, npmrc, go: options.go });
    // Explicit either way: pnpm's own default follows CI.
    const args = [layout.pnpmEntry, "install", locked ? "--frozen-lockfile" : "--no-frozen-lockfile"];
    if (options.offline) {
      const rc = join(layout.tmp, `offline-npmrc-${process.pid}`);
      await ensureOwnDir(layout.prefix, layout.tmp, 0o700);
      await writeFileAtomic(rc, `registry=${options.offline.registry}\n`, 0o600);
      env = offlinePnpmEnvironment(env, rc, options.offline.registry);
    }
    stepMark("pnpm:start", options.env);
    const result = await run(layout.node, args, {
      cwd: dir,
      env,
      echo,
      timeoutMs: 30 * 60_000,
      // pnpm writes the version's node_modules and the store: none of it group- or other-writable.
      umask: 0o022,
      // A full disk ends pnpm at once, rather than after its retries' waits.
      stopOn: DISK_FULL_OUTPUT,
    });
    stepMark("pnpm:end", options.env);
    if (result.stopped !== undefined) {
      throw Object.assign(new Error(`pnpm ran out of disk space installing ${id} (${result.stopped})`), { code: "ENOSPC" });
    }
    if (result.code !== 0 && !locked) {
      throw new Error(`pnpm could not install ${SHELL_PACKAGE} ${shell} with Pi ${pi} without a lockfile (${pnpmFailure(result)})`);
    }
    if (result.code !== 0) {
      throw new Error(`pnpm install --frozen-lockfile${options.offline ? " from the offline bundle's packages" : ""} failed for ${id}:\n${outputTail(result)}`);
    }
    await checkInstalled(dir, SHELL_PACKAGE, shell);
    await checkInstalled(dir, PI_PACKAGE, pi);
    await writeFileAtomic(join(dir, VERSION_MARKER), `${id}\n`, 0o644);
    stepMark("version:marked", options.env);
    return { id, path: dir, status: "installed", ...(repaired ? { repaired } : {}) };
  } catch (error) {
    // Nothing of ours runs from the folder when it goes.
    await options.alongside?.stop().catch(() => undefined);
    await rm(dir, { recursive: true, force: true });
    if (isDiskFull(error)) await freeStoreIfUnused(layout);
    throw error;
  }
}

/**
 * After a full disk, pnpm's store is removed when no version is left to use
 * it (a first install): the disk is given back as it was, but for the
 * runtimes kept for the next run. With versions installed it stays.
 */
async function freeStoreIfUnused(layout: Layout): Promise<void> {
  const left = await fs.readdir(layout.versions).catch(() => null);
  if (left && left.length === 0) await removeOwnFolder(layout.pnpm.store).catch(() => undefined);
}

/** pnpm's report of a full disk (its ERR_PNPM_ENOSPC line, or the system's message). */
// No word boundary before the code: pnpm writes it as ERR_PNPM_ENOSPC.
export const DISK_FULL_OUTPUT = /ENOSPC|EDQUOT|no space left on device|disk quota exceeded/i;

async function checkInstalled(dir: string, name: string, version: string): Promise<void> {
  const text = await readTextOrNull(join(dir, "node_modules", name, "package.json"));
  const installed = text ? (JSON.parse(text) as { version?: string }).version : undefined;
  if (installed !== version) {
    throw new Error(`after pnpm ran, ${name} is ${installed ?? "missing"}; the version pins ${version} exactly`);
  }
}

/** pnpm's reason in one line: its first ERR_PNPM_ line, else the last line it printed. */
export function pnpmFailure(result: Pick<RunResult, "stdout" | "stderr" | "code">): string {
  const lines = `${result.stdout}\n${result.stderr}`
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter(Boolean);
  const line = lines.find((l) => /\bERR_PNPM_[A-Z0-9_]+/.test(l)) ?? lines[lines.length - 1] ?? `pnpm exited with code ${result.code}`;
  return redactText(
    line
      .replace(/\[(ERR_PNPM_[A-Z0-9_]+)\]/, "$1")
      .replace(/\s+/g, " ")
      .slice(0, 300),
  );
}

/** Our marked Go folder with its go.exe (Windows): what gentle-pi's build gets on its PATH. */
async function pinnedGoThere(layout: Layout): Promise<boolean> {
  return (await isMarkedRuntime(dirname(layout.goDir))) && ((await lstatOrNull(join(layout.goDir, "bin", "go.exe")))?.isFile() ?? false);
}
