/**
 * `status` (issue 14): what a bundled install holds, read and never written.
 * The active version and the kept ones, the runtimes and their markers, the
 * launcher and its check, the PATH entry's receipt, where the install came
 * from (masked), and, only when asked, the memory decision. The folder reads
 * are read-only helpers of src/install/; running the launcher, reading the
 * receipt and probing Engram are the injected StatusProbes, so tests decide
 * what they answer and see whether they were asked at all.
 */
import { errnoCode } from "../../core/errno";
import { promises as fs } from "node:fs";
import { join } from "../../core/native-path";
import { tildify, tildifyText, type Layout } from "../../core/layout";
import { PI_PACKAGE, SHELL_PACKAGE } from "../../core/release-project";
import { npmrcRegistry } from "../../core/npmrc";
import { redactText, redactUrl } from "../../core/secrets";
import type { Env } from "../../core/environment";
import type { Pins } from "../../pins/types";
import { lstatOrNull, readTextOrNull } from "../../io/files";
import { rememberedSource } from "../../install/remembered-source";
import { parseHistory, readCurrent } from "../../install/activate";
import { versionState } from "../../install/version-install";
import { LAUNCHER_MARKER, CMD_MARKER } from "../../install/launcher";
import { RUNTIME_MARKER } from "../../install/runtime/recipe";
import type { ReadReceipt } from "../../path/receipt-file";
import { updatePolicyOf } from "../../installed/update-gate";
import { updatesInfo, type UpdatesInfo } from "./updates";

export interface VersionInfo {
  id: string;
  shell: string | null;
  pi: string | null;
  /** valid: a finished install; the others as src/install/version-install.ts classifies them. */
  state: "valid" | "installing" | "abandoned" | "foreign" | "absent";
}

export interface RuntimeInfo {
  name: string;
  version: string;
  /** runtime/<name>-<version>, relative to the prefix. */
  folder: string;
  /** marked: a folder with our runtime marker; unmarked: something else stands there. */
  state: "marked" | "missing" | "unmarked";
  /** The install cannot run without it. */
  required: boolean;
}

export interface LauncherInfo {
  path: string;
  file: "ours" | "missing" | "foreign";
  check: "passed" | "failed" | "not-run";
  /** What `gentle-shell --version` reported, or why the check failed. */
  detail: string;
}

export interface PathInfo {
  receipt: "valid" | "invalid" | "missing";
  kind: "link" | "profile" | "registry" | null;
  /** The file, link or registry value the receipt names (home as ~). */
  where: string | null;
  /** Why an invalid receipt is not ours. */
  reason: string | null;
  /** The prefix's bin folder, or the receipt's link folder, is on this process's PATH. */
  onPath: boolean;
}

export interface SourceInfo {
  /** official, a mirror URL (masked) or an offline folder (home as ~). */
  source: string;
  /** The registry the install's npm settings or its record name, masked; null when neither does. */
  registry: string | null;
}

export type MemoryInfo = { probed: false } | { probed: true; memory: "allowed" | "disabled"; reason: string; notice: string | null };

export interface StatusReport {
  installed: boolean;
  healthy: boolean;
  prefix: string;
  active: VersionInfo | null;
  kept: VersionInfo[];
  runtimes: RuntimeInfo[];
  launcher: LauncherInfo | null;
  path: PathInfo | null;
  source: SourceInfo | null;
  memory: MemoryInfo;
  /** The update policy in force and where it came from (./updates.ts); null when nothing is installed. */
  updates: UpdatesInfo | null;
  /** Each thing that makes the install broken, one sentence each (home as ~). */
  problems: string[];
}

/** The parts of status that run or read something beyond the prefix's folders. */
export interface StatusProbes {
  /** `gentle-shell --version` through the launcher. */
  runLauncher(): Promise<{ code: number | null; stdout: string; stderr: string }>;
  /** path-entry.json read back (src/path/receipt-file.ts). */
  readReceipt(): ReadReceipt;
  /** The memory decision, classified without starting anything; called only when asked. */
  probeMemory(): Promise<{ memory: "allowed" | "disabled" | "start"; row: string; notice?: string }>;
}

export interface StatusOptions {
  layout: Layout;
  pins: Pins;
  env: Env;
  probes: StatusProbes;
  /** Probe Engram for the memory decision. */
  memory: boolean;
  /** Run the launcher's check (an install's final state skips it: verify-launcher just ran). */
  launcherCheck?: boolean;
}

const ID = /^[0-9A-Za-z][0-9A-Za-z.+-]*$/;

async function versionInfo(layout: Layout, id: string): Promise<VersionInfo> {
  const state = (await versionState(layout, id)).kind;
  let shell: string | null = null;
  let pi: string | null = null;
  if (state === "valid") {
    try {
      const manifest = JSON.parse((await readTextOrNull(join(layout.versions, id, "package.json"))) ?? "{}") as { dependencies?: Record<string, string> };
      shell = manifest.dependencies?.[SHELL_PACKAGE] ?? null;
      pi = manifest.dependencies?.[PI_PACKAGE] ?? null;
    } catch {
      /* reported as a version without its release pair */
    }
  }
  return { id, shell, pi, state };
}

async function runtimeInfo(layout: Layout, name: string, version: string, dir: string, required: boolean): Promise<RuntimeInfo> {
  const stat = await lstatOrNull(dir);
  const marker = stat?.isDirectory() ? await lstatOrNull(join(dir, RUNTIME_MARKER)) : null;
  const state = !stat ? "missing" : marker?.isFile() ? "marked" : "unmarked";
  return {
    name,
    version,
    folder: dir
      .slice(layout.prefix.length + 1)
      .split("\\")
      .join("/"),
    state,
    required,
  };
}

function onPath(env: Env, layout: Layout, receiptLink: string | null): boolean {
  const key = Object.keys(env).find((k) => (layout.platform === "win32" ? k.toUpperCase() === "PATH" : k === "PATH"));
  const entries = (key ? (env[key] ?? "") : "").split(layout.platform === "win32" ? ";" : ":").map((e) => e.replace(/[\\/]+$/, ""));
  const wanted = [layout.bin, ...(receiptLink ? [receiptLink.slice(0, receiptLink.replace(/\\/g, "/").lastIndexOf("/"))] : [])];
  const same = (a: string, b: string) =>
    layout.platform === "win32" ? a.replace(/\//g, "\\").toLowerCase() === b.replace(/\//g, "\\").toLowerCase() : a === b;
  return entries.some((e) => wanted.some((w) => same(e, w)));
}

async function launcherInfo(layout: Layout, probes: StatusProbes, active: VersionInfo | null, run: boolean): Promise<LauncherInfo> {
  const path = tildify(layout.launcher, layout.home);
  const stat = await lstatOrNull(layout.launcher);
  if (!stat) return { path, file: "missing", check: "not-run", detail: "no launcher" };
  const text = stat.isFile() ? await readTextOrNull(layout.launcher) : null;
  const marker = layout.platform === "win32" ? CMD_MARKER : LAUNCHER_MARKER;
  if (!text?.split(/\r?\n/).includes(marker)) return { path, file: "foreign", check: "not-run", detail: "not written by gentle-shell-setup" };
  if (!run) return { path, file: "ours", check: "not-run", detail: "" };
  if (active?.state !== "valid") return { path, file: "ours", check: "not-run", detail: "no active version to check" };
  const result = await probes.runLauncher().catch((error: Error) => ({ code: null, stdout: "", stderr: error.message }));
  const lines = result.stdout.split(/\r?\n/);
  const reported = lines.slice(0, 2).join(" / ");
  const expected = `gentle-shell ${active.shell} / pi ${active.pi}`;
  if (result.code === 0 && reported === expected) return { path, file: "ours", check: "passed", detail: reported };
  const said = reported.trim() || result.stderr.trim().split(/\r?\n/)[0]?.slice(0, 200) || `exit code ${result.code}`;
  return { path, file: "ours", check: "failed", detail: redactText(tildifyText(`reported ${JSON.stringify(said)}, expected ${expected}`, layout.home)) };
}

function pathInfo(layout: Layout, env: Env, read: ReadReceipt): PathInfo {
  const home = layout.home;
  if (read.status === "missing") return { receipt: "missing", kind: null, where: null, reason: null, onPath: onPath(env, layout, null) };
  if (read.status === "invalid") {
    return {
      receipt: "invalid",
      kind: null,
      where: read.manual ? tildify(read.manual, home) : null,
      reason: tildifyText(read.reason, home),
      onPath: onPath(env, layout, null),
    };
  }
  const r = read.receipt;
  const where = r.kind === "registry" ? `${r.key}\\${r.name}` : tildify(r.path, home);
  return { receipt: "valid", kind: r.kind, where, reason: null, onPath: onPath(env, layout, r.kind === "link" ? r.path : null) };
}

async function sourceInfo(layout: Layout, env: Env): Promise<SourceInfo> {
  const remembered = await rememberedSource(layout).catch(() => undefined);
  const npmrc = (await readTextOrNull(layout.pnpm.npmrc).catch(() => null)) ?? "";
  let registry = npmrcRegistry(npmrc, env);
  if (!registry) {
    try {
      const record = JSON.parse((await readTextOrNull(layout.npm.registryRecord)) ?? "null") as { registry?: unknown } | null;
      if (typeof record?.registry === "string") registry = record.registry;
    } catch {
      /* no record: npm's default was never asked */
    }
  }
  return {
    source: remembered ? redactUrl(tildifyText(remembered, layout.home)) : "official",
    registry: registry ? redactUrl(registry) : null,
  };
}

/** Everything `status` reports; reads only. */
export async function gatherStatus(options: StatusOptions): Promise<StatusReport> {
  const { layout, pins, env, probes } = options;
  const home = layout.home;
  const prefix = tildify(layout.prefix, home);
  const memoryNotAsked: MemoryInfo = { probed: false };
  const prefixStat = await lstatOrNull(layout.prefix);
  if (!prefixStat) {
    return {
      installed: false,
      healthy: false,
      prefix,
      active: null,
      kept: [],
      runtimes: [],
      launcher: null,
      path: null,
      source: null,
      memory: memoryNotAsked,
      updates: null,
      problems: [],
    };
  }
  const problems: string[] = [];
  if (!prefixStat.isDirectory()) problems.push(`${prefix} is not a folder`);

  let currentId: string | null = null;
  try {
    currentId = await readCurrent(layout);
    if (!currentId) problems.push(`no current version: ${prefix}/current is missing`);
  } catch (error) {
    problems.push(tildifyText((error as Error).message, home));
  }
  const active = currentId ? await versionInfo(layout, currentId) : null;
  if (active && active.state !== "valid") problems.push(`current names versions/${active.id}, which is not a finished install (${active.state})`);
  else if (active && (!active.shell || !active.pi)) problems.push(`versions/${active.id} has no release manifest`);

  const history = parseHistory(await readTextOrNull(layout.history).catch(() => null));
  const names = prefixStat.isDirectory() ? await fs.readdir(layout.versions).catch(() => [] as string[]) : [];
  const others = names.filter((id) => ID.test(id) && id !== currentId);
  others.sort((a, b) => (history.indexOf(a) + 1 || Infinity) - (history.indexOf(b) + 1 || Infinity) || a.localeCompare(b));
  const kept = await Promise.all(others.map((id) => versionInfo(layout, id)));

  const runtimes = await Promise.all([
    runtimeInfo(layout, "node", pins.node.version, layout.nodeDir, true),
    runtimeInfo(layout, "pnpm", pins.pnpm.version, layout.pnpmDir, true),
    runtimeInfo(layout, "engram", pins.engram.version, layout.engramDir, false),
    ...(layout.platform === "win32" ? [runtimeInfo(layout, "go", pins.go.version, join(layout.runtime, "go", pins.go.version), false)] : []),
    runtimeInfo(layout, "fd", pins.tools.fd.version, layout.fdDir, false),
    runtimeInfo(layout, "ripgrep", pins.tools.ripgrep.version, layout.ripgrepDir, false),
  ]);
  for (const r of runtimes) {
    if (r.required && r.state !== "marked")
      problems.push(`${r.name} ${r.version} is ${r.state === "missing" ? "missing" : "not marked as ours"} (${r.folder})`);
  }

  const launcher = await launcherInfo(layout, probes, active, options.launcherCheck ?? true);
  if (launcher.file !== "ours") problems.push(`the launcher ${launcher.path} is ${launcher.file === "missing" ? "missing" : "not ours"}`);
  else if (launcher.check === "failed") problems.push(`the launcher check failed: ${launcher.detail}`);

  let read: ReadReceipt;
  try {
    read = probes.readReceipt();
  } catch (error) {
    read = {
      status: "invalid",
      reason: `path-entry.json could not be read (${errnoCode(error) ?? (error as Error).message})`,
      manual: null,
    };
  }
  const path = pathInfo(layout, env, read);
  const source = await sourceInfo(layout, env);

  let memory: MemoryInfo = memoryNotAsked;
  if (options.memory) {
    const decision = await probes.probeMemory();
    memory = {
      probed: true,
      memory: decision.memory === "allowed" ? "allowed" : "disabled",
      reason: decision.row,
      notice: decision.notice ? tildifyText(decision.notice, home) : null,
    };
  }
  // Never a problem of the install's: a policy source that cannot be read means off, and the row says why.
  const updates = await updatePolicyOf(layout, env).then(updatesInfo, () => null);
  return { installed: true, healthy: problems.length === 0, prefix, active, kept, runtimes, launcher, path, source, memory, updates, problems };
}
