/**
 * gentle-shell setup in a bundled install (spec: "Launcher in a bundled
 * install", Setup; "Isolation from the user's Gentle AI"; "Recovery and
 * setup"). Publishes the verified Engram core first and stops if it cannot;
 * then runs the version's pinned Gentle AI (`gentle-ai install --agent pi`)
 * with pi findable on PATH, Gentle AI's isolation variables, and the
 * persona files it may rewrite restored afterwards.
 */
import { EXIT } from "../core/errors";
import { runAttached } from "../io/process";
import type { Output } from "../core/errors";
import type { Host } from "../io/host";
import { promises as fs } from "node:fs";
import { dirname, join, resolve } from "../core/native-path";
import { tildify, tildifyText, type Platform } from "../core/layout";
import { privateSetupEnv } from "../core/environment";
import { piOfflineByEnv } from "../core/env-flags";
import { parseSource } from "../core/source";
import { hostRuntimeContext } from "../install/runtime/host-context";
import { lstatOrNull, readTextOrNull, tempSibling, writeFileAtomic } from "../io/files";
import { ensureOwnDir } from "../io/own-dir";
import { acquireInstallLock } from "../install/lock";
import { ensureEngram } from "../install/runtime/engram";
import type { PrivateInstall } from "../installed/private-install";
import { recordSetup, setupMarkerPath } from "../installed/setup-marker";
import { rememberedSource } from "../install/remembered-source";
import { rename, rm } from "../io/locked-retry";

/**
 * Where to look for the gentle-ai executable, first match wins. Windows starts
 * only a name with an extension it knows (libuv tries .com and .exe for a bare
 * name, never the bare name), and Go's build there writes gentle-ai.exe: so a
 * bare bin entry is looked for with .exe; POSIX takes the entry as it is.
 */
export function gentleAiCandidates(rel: string, platform: Platform): string[] {
  if (platform !== "win32" || /\.exe$/i.test(rel)) return [rel];
  return [`${rel}.exe`];
}

/** The gentle-ai executable gentle-pi's build leaves: its package.json bin entry, else bin/gentle-ai. */
export async function gentleAiExecutable(install: PrivateInstall): Promise<string> {
  const pkg = JSON.parse((await readTextOrNull(join(install.gentlePiRoot, "package.json"))) ?? "{}") as { bin?: unknown };
  const bin = typeof pkg.bin === "object" && pkg.bin !== null ? (pkg.bin as Record<string, unknown>)["gentle-ai"] : undefined;
  const rel = typeof bin === "string" ? bin : "bin/gentle-ai";
  const candidates = gentleAiCandidates(rel, install.layout.platform);
  for (const name of candidates) {
    const file = join(install.gentlePiRoot, name);
    if ((await lstatOrNull(file))?.isFile()) return file;
  }
  throw new Error(
    `gentle-pi ${install.shell} has no gentle-ai executable (${candidates.join(" or ")}); its build did not run. Run the Gentle Shell installer again.`,
  );
}

/**
 * What stood at a guarded path before Gentle AI ran. A link (dotfiles kept
 * with stow or chezmoi) is remembered with its target's bytes, so a rewrite
 * through the link is undone in the target, and the link itself is put back
 * if it was replaced.
 */
export type Snapshot =
  | { path: string; kind: "absent" }
  | { path: string; kind: "other" }
  | { path: string; kind: "file"; bytes: Buffer; mode: number }
  | { path: string; kind: "link"; link: string; target: string | null; bytes: Buffer | null; mode: number };

export async function snapshot(paths: string[]): Promise<Snapshot[]> {
  return Promise.all(
    paths.map(async (path): Promise<Snapshot> => {
      const stat = await lstatOrNull(path);
      if (!stat) return { path, kind: "absent" };
      if (stat.isFile()) return { path, kind: "file", bytes: await fs.readFile(path), mode: stat.mode & 0o777 };
      if (!stat.isSymbolicLink()) return { path, kind: "other" };
      const link = await fs.readlink(path);
      const target = await fs.realpath(path).catch(() => null);
      const targetStat = target ? await lstatOrNull(target) : null;
      if (target && targetStat?.isFile()) return { path, kind: "link", link, target, bytes: await fs.readFile(target), mode: targetStat.mode & 0o777 };
      // A dangling link: whatever Gentle AI creates through it is removed again.
      return { path, kind: "link", link, target: targetStat ? null : resolve(dirname(path), link), bytes: null, mode: 0o644 };
    }),
  );
}

/** Put the bytes of `file` back to `bytes` (or remove it when it did not exist); true when it changed. */
async function putBack(file: string, bytes: Buffer | null, mode: number): Promise<boolean> {
  const stat = await lstatOrNull(file);
  if (bytes === null) {
    if (!stat?.isFile()) return false;
    await rm(file);
    return true;
  }
  if (stat && !stat.isFile()) return false;
  if (stat && (await fs.readFile(file)).equals(bytes)) return false;
  await writeFileAtomic(file, bytes, stat ? stat.mode & 0o777 : mode);
  return true;
}

/** Put a link back where Gentle AI replaced or removed it, with one rename. */
async function relink(path: string, link: string): Promise<boolean> {
  const stat = await lstatOrNull(path);
  if (stat?.isSymbolicLink() && (await fs.readlink(path)) === link) return false;
  if (stat && !stat.isFile() && !stat.isSymbolicLink()) return false;
  const tmp = tempSibling(path);
  await fs.symlink(link, tmp);
  try {
    await rename(tmp, path);
  } catch (error) {
    await rm(tmp, { force: true });
    throw error;
  }
  return true;
}

/** Put each guarded file back as it was; an unchanged file is not touched. Returns what was restored, and how. */
export async function restore(snaps: Snapshot[]): Promise<Array<{ path: string; via?: string }>> {
  const restored: Array<{ path: string; via?: string }> = [];
  for (const snap of snaps) {
    if (snap.kind === "other") continue;
    if (snap.kind === "absent") {
      if (await putBack(snap.path, null, 0)) restored.push({ path: snap.path });
      continue;
    }
    if (snap.kind === "file") {
      if (await putBack(snap.path, snap.bytes, snap.mode)) restored.push({ path: snap.path });
      continue;
    }
    // A link: its target's bytes first, then the link itself.
    let changed = false;
    if (snap.target) changed = await putBack(snap.target, snap.bytes, snap.mode);
    changed = (await relink(snap.path, snap.link)) || changed;
    if (changed) restored.push({ path: snap.path, via: snap.target ?? snap.link });
  }
  return restored;
}

export interface SetupOptions {
  /** First-use setup: failures are not printed here (it reports them in one line) and the record says so. */
  firstUse?: boolean;
}

export interface SetupResult {
  code: number;
  /** Why it failed, as a clause: no leading "gentle-shell:", no final period. */
  reason?: string;
}

export async function runSetup(install: PrivateInstall, args: string[], host: SetupHost): Promise<number> {
  return (await setupRun(install, args, host)).code;
}

/**
 * gentle-shell setup, with why it failed; a successful full run records the setup marker (src/installed/setup-marker.ts).
 * `host.env` is the environment setup runs in: the Host's, or first use's setup environment.
 */
export async function setupRun(install: PrivateInstall, args: string[], host: SetupHost, options: SetupOptions = {}): Promise<SetupResult> {
  const err = (line: string) => host.err(`gentle-shell: ${line}`);
  const fail = (message: string, reason: string): SetupResult => {
    if (!options.firstUse) err(message);
    return { code: EXIT.failure, reason };
  };
  // The install lock: no upgrade or self-uninstall works in the prefix while setup writes to it.
  let lock: Awaited<ReturnType<typeof acquireInstallLock>>;
  try {
    lock = await acquireInstallLock(install.layout, 300_000, (pid) => host.out(`Waiting for another gentle-shell-setup (process ${pid}) to finish...`));
  } catch (error) {
    return fail(`setup stopped: ${(error as Error).message}.`, (error as Error).message);
  }
  let result: SetupResult;
  try {
    result = await setupLocked(install, args, { err, fail }, host);
  } finally {
    await lock.release();
  }
  // Only a full run counts as setup having run: not a dry run and not Gentle AI's help.
  const full = !args.some((a) => a === "--dry-run" || a === "--help" || a === "-h");
  if (result.code === 0 && full) {
    await recordSetup(install.layout, { status: "done", by: options.firstUse ? "first-use" : "setup", version: install.id }).catch((error: Error) =>
      err(`setup finished, but ${tildify(setupMarkerPath(install.layout), install.layout.home)} could not record it (${error.message}).`),
    );
  }
  return result;
}

/** The environment setup runs in, what it speaks through, and the HTTP client its downloads (Engram, Pi's tools) go through. */
export type SetupHost = Output & Pick<Host, "env" | "http" | "target">;

interface Say {
  err: (line: string) => void;
  fail: (message: string, reason: string) => SetupResult;
}

async function setupLocked(install: PrivateInstall, args: string[], { err, fail }: Say, io: SetupHost): Promise<SetupResult> {
  const { layout } = install;
  const { env } = io;
  // A dry run and Gentle AI's help only look: nothing is published, downloaded or created for them.
  const looksOnly = args.some((a) => a === "--dry-run" || a === "--help" || a === "-h");
  // Engram first: setup stops if the verified core cannot be published, whatever the memory decision.
  const sourceArg = await rememberedSource(layout);
  const source = parseSource(sourceArg, "");
  if (!looksOnly) {
    const engram = await ensureEngram(hostRuntimeContext(io, layout, source)).catch((error: Error) => ({
      available: false as const,
      reason: error.message,
    }));
    if (!engram.available) {
      return fail(
        `setup stopped: the bundled Engram could not be published (${engram.reason}). Nothing was set up.`,
        `the bundled Engram could not be published: ${engram.reason}`,
      );
    }
  }
  // Pi's own tools, from the same source while it is at hand (an offline bundle, a mirror).
  if (!looksOnly) await (await import("../installed/pi-tools-provision")).provisionPiTools(install, env, piOfflineByEnv(env), io, { launch: false });
  const { applyEngram, ownCoreVerified, engramLaunchEnvironment } = await import("../installed/engram/launch");
  const engramPublished = await ownCoreVerified(layout);
  let gentleAi: string;
  try {
    gentleAi = await gentleAiExecutable(install);
  } catch (error) {
    return fail((error as Error).message, (error as Error).message.replace(/\.[^.]*\.$/, ""));
  }
  const home = layout.home;
  const guarded = await snapshot([
    join(layout.gentleAiConfig, "persona.json"),
    join(home, ".pi", "gentle-ai", "persona.json"),
    join(home, ".gentle-ai", "state.json"),
  ]);
  try {
    // Never through a link: each folder is checked, and created 0700 when absent (not for a look).
    if (!looksOnly) for (const folder of [layout.gentleAi, layout.gentleAiConfig]) await ensureOwnDir(layout.prefix, folder, 0o700);
  } catch (error) {
    const why = tildifyText((error as Error).message, home);
    return fail(`setup stopped: ${why}. Nothing was set up.`, why);
  }
  const setupEnv = privateSetupEnv(install, env, engramPublished);
  // Setup reclassifies after publishing the core; it never starts a server.
  applyEngram(setupEnv, await engramLaunchEnvironment(layout, env, "classify"), io);
  const ended = await runAttached(gentleAi, ["install", "--agent", "pi", ...args], { env: setupEnv, cwd: home, stdout: "inherit" });
  const result: SetupResult = (() => {
    if ("error" in ended) return fail(`could not start gentle-ai: ${ended.error}`, `gentle-ai could not be started: ${ended.error}`);
    const code = ended.code ?? (ended.signal ? EXIT.interrupted : EXIT.failure);
    return code === 0 ? { code } : { code, reason: ended.signal ? `Gentle AI was stopped by ${ended.signal}` : `Gentle AI exited with code ${code}` };
  })();
  const restored = await restore(guarded);
  for (const r of restored) {
    err(`restored ${tildify(r.path, home)}${r.via ? ` (through its link to ${tildify(r.via, home)})` : ""}, which Gentle AI changed`);
  }
  return result;
}
