/**
 * Staging, the one way we bring a file or folder into place (spec:
 * "Ownership rules": written aside, checked, then published with one
 * rename). A staging entry's name carries its owner's pid, so a later run
 * can tell an abandoned one (its process is gone) from one still in use, and
 * sweep only those. Runtimes, downloads, bundle stores, receipts and markers
 * all use these names, so one sweep rule covers them.
 *
 *   const staging = stagingPath(dir, "staging-node");   // dir/.staging-node-<pid>-<8 hex>
 *   ... write, verify ...
 *   await publishByRename(staging, final);              // refuses to replace anything
 *   await sweepAbandoned(dir, ["staging-node", "download"]);
 */
import { randomBytes } from "node:crypto";
import { promises as fs } from "node:fs";
import { join } from "pathe";
import { isAlive, lstatOrNull } from "./files";

/** `.<tag>-<pid>-<8 hex>`, beside `dir`'s other entries. */
export function stagingName(tag: string, pid = process.pid): string {
  return `.${tag}-${pid}-${randomBytes(4).toString("hex")}`;
}

export function stagingPath(dir: string, tag: string): string {
  return join(dir, stagingName(tag));
}

/** The owner's pid of a staging name with one of `tags` (a trailing extension allowed), or null. */
export function stagingOwner(name: string, tags: readonly string[]): number | null {
  for (const tag of tags) {
    if (!name.startsWith(`.${tag}-`)) continue;
    const m = /^-(\d+)-[0-9a-f]{8}(?:\.[A-Za-z0-9.]+)?$/.exec(name.slice(tag.length + 1));
    if (m) return Number(m[1]);
  }
  return null;
}

/**
 * Remove the staging entries with one of `tags` in `dir` whose process is
 * gone (never our own, never a live installer's). Returns what it removed.
 */
export async function sweepAbandoned(dir: string, tags: readonly string[]): Promise<string[]> {
  const removed: string[] = [];
  for (const name of await fs.readdir(dir).catch(() => [] as string[])) {
    const pid = stagingOwner(name, tags);
    if (pid === null || pid === process.pid || isAlive(pid)) continue;
    await fs.rm(join(dir, name), { recursive: true, force: true });
    removed.push(name);
  }
  return removed;
}

/**
 * Put a staged entry in its place with one rename; refuses when anything
 * already stands there (the caller decides whether that is ours to reuse).
 */
export async function publishByRename(staging: string, dest: string): Promise<void> {
  if (await lstatOrNull(dest)) throw Object.assign(new Error(`${dest} already exists`), { code: "EEXIST" });
  await fs.rename(staging, dest);
}
