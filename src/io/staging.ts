/**
 * Staging, the one way we bring a file or folder into place (spec:
 * "Ownership rules": written aside, checked, then published with one
 * rename). A staging entry's name carries its owner's pid, so a later run
 * can tell an abandoned one (its process is gone) from one still in use, and
 * sweep only those. Runtimes, downloads, bundle stores, receipts and markers
 * all use these names, so one sweep rule covers them.
 *
 *   const staging = stagingPath(dir, "staging", { label: "node" });   // dir/.staging-node-<pid>-<8 hex>
 *   ... write, verify ...
 *   await publishByRename(staging, final);                           // refuses to replace anything
 *   await sweepAbandoned(dir, ["staging", "download"]);
 */
import { promises as fs } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "../core/native-path";
import { isAlive } from "./alive";
import { type LockRules, machineRules, rename, rm, unlink } from "./locked-retry";

/**
 * `.<kind>[-<label>]-<pid>-<8 hex>[<ext>]`: what it is (staging, download,
 * offline-store, ...), an optional label (the runtime, the file it stands
 * for), whose it is, and a random part so two of ours never meet.
 */
export function stagingName(kind: string, options: { label?: string; ext?: string; pid?: number } = {}): string {
  const label = options.label ? `-${options.label}` : "";
  return `.${kind}${label}-${options.pid ?? process.pid}-${randomHex(4)}${options.ext ?? ""}`;
}

export function stagingPath(dir: string, kind: string, options: { label?: string; ext?: string } = {}): string {
  return join(dir, stagingName(kind, options));
}

/** The owner's pid of a staging name of one of `kinds` (of any kind when none are named), or null for any other name. */
export function stagingOwner(name: string, kinds?: readonly string[]): number | null {
  if (kinds === undefined) {
    const m = /^\..+-(\d+)-[0-9a-f]{8}(?:\.[A-Za-z0-9.]+)?$/.exec(name);
    return m ? Number(m[1]) : null;
  }
  for (const kind of kinds) {
    if (!name.startsWith(`.${kind}-`)) continue;
    const m = /^(?:.*?-)?(\d+)-[0-9a-f]{8}(?:\.[A-Za-z0-9.]+)?$/.exec(name.slice(kind.length + 2));
    if (m) return Number(m[1]);
  }
  return null;
}

/**
 * Remove the staging entries with one of `tags` in `dir` whose process is
 * gone (never our own, never a live installer's). Returns what it removed.
 * Links are never followed: a `dir` that is a link is not swept, an entry
 * that is a link loses only the link, and a folder's removal unlinks the
 * links inside it.
 */
export async function sweepAbandoned(dir: string, tags: readonly string[]): Promise<string[]> {
  const removed: string[] = [];
  const top = await fs.lstat(dir).catch(() => null);
  if (!top?.isDirectory()) return removed;
  for (const name of await fs.readdir(dir).catch(() => [] as string[])) {
    const pid = stagingOwner(name, tags);
    if (pid === null || pid === process.pid || isAlive(pid)) continue;
    const path = join(dir, name);
    const stat = await fs.lstat(path).catch(() => null);
    if (!stat) continue;
    if (stat.isDirectory()) await rm(path, { recursive: true, force: true });
    else await unlink(path).catch(() => undefined);
    removed.push(name);
  }
  return removed;
}

/**
 * A new private folder of ours in the system's temporary folder,
 * `.<kind>-<pid>-<8 hex>`, after sweeping those of `kind` whose process is
 * gone (a run killed before its own cleanup). The caller removes it.
 */
export async function temporaryFolder(kind: string): Promise<string> {
  await sweepAbandoned(tmpdir(), [kind]);
  const dir = stagingPath(tmpdir(), kind);
  await fs.mkdir(dir, { mode: 0o700 });
  return dir;
}

/**
 * Put a staged entry in its place with one rename; refuses when anything
 * already stands there (the caller decides whether that is ours to reuse).
 * A rename refused by a file held for a moment is tried again (`rules`,
 * io/locked-retry.ts); one that never goes leaves the staging as it was.
 */
export async function publishByRename(staging: string, dest: string, rules: LockRules = machineRules): Promise<void> {
  const there = await fs.lstat(dest).then(
    () => true,
    (error: NodeJS.ErrnoException) => error.code !== "ENOENT",
  );
  if (there) throw Object.assign(new Error(`${dest} already exists`), { code: "EEXIST" });
  await rename(staging, dest, rules);
}

/** `bytes` random bytes in hex, from Web Crypto (loaded on first use, not with this module). */
function randomHex(bytes: number): string {
  return Buffer.from(globalThis.crypto.getRandomValues(new Uint8Array(bytes))).toString("hex");
}
