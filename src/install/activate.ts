/**
 * current and versions.history (spec: "Ownership rules", current; "Layout").
 * current is a relative symlink to versions/<id> on POSIX and a pointer file
 * holding the id on Windows, switched with one rename, and only when what
 * stands there is ours.
 */
import { errnoCode } from "../core/errno";
import { promises as fs } from "node:fs";
import { join } from "../core/native-path";
import type { Layout } from "../core/layout";
import { ENGINE_PATH } from "./engine-start";
import { lstatOrNull, readTextOrNull, tempSibling, writeFileAtomic } from "../io/files";
import { type LockRules, machineRules, rename, rm } from "../io/locked-retry";

/** A version id's shape: <shell>-<pi>, so never . or .., which would name the versions folder or the prefix. */
const ID = /^[0-9A-Za-z][0-9A-Za-z.+-]*$/;

/** The version id current names, or null when there is none; throws when current is not ours. */
export async function readCurrent(layout: Layout): Promise<string | null> {
  const stat = await lstatOrNull(layout.current);
  if (!stat) return null;
  if (layout.platform === "win32") {
    if (!stat.isFile()) throw new Error(`${layout.current} is not a pointer file made by gentle-shell-setup`);
    const id = ((await readTextOrNull(layout.current)) ?? "").trim();
    if (!ID.test(id)) throw new Error(`${layout.current} does not hold a version id`);
    return id;
  }
  if (!stat.isSymbolicLink()) throw new Error(`${layout.current} is not a link made by gentle-shell-setup`);
  const target = await fs.readlink(layout.current);
  const m = /^versions\/([^/]+)$/.exec(target);
  if (!m || !ID.test(m[1]!)) throw new Error(`${layout.current} points at ${target}, not at a version of this install`);
  return m[1]!;
}

/**
 * The engine of the active version: versions/<id>/<ENGINE_PATH>, from the id
 * current names (on Windows current is a pointer file, never a folder to
 * join under). Throws one sentence when no version is active.
 */
export async function currentEngine(layout: Layout): Promise<string> {
  const id = await readCurrent(layout);
  if (id === null) throw new Error("no Gentle Shell version is active; run the Gentle Shell installer again");
  return join(layout.versions, id, ENGINE_PATH);
}

/**
 * Switch current to `id` with one rename. A rename refused by a file held
 * for a moment is tried again (`rules`, io/locked-retry.ts); one that never
 * goes leaves current naming the version it named.
 */
export async function activateVersion(layout: Layout, id: string, rules: LockRules = machineRules): Promise<{ previous: string | null }> {
  if (!ID.test(id)) throw new Error(`not a version id: ${id}`);
  const previous = await readCurrent(layout).catch((error: Error) => {
    throw new Error(`${error.message}; current was not switched. Move it away, then run the installer again.`);
  });
  // The history is written after the switch, so it must be writable before: a folder or a link
  // there would otherwise leave current switched with the activation unrecorded.
  const history = await lstatOrNull(layout.history);
  if (history && !history.isFile()) {
    throw new Error(`${layout.history} is not a file made by gentle-shell-setup; current was not switched. Move it away, then run this again.`);
  }
  await pointCurrentAt(layout, id, rules);
  try {
    await recordActivation(layout, id, rules);
  } catch (error) {
    // Any failure before the end leaves current as it was.
    if (previous) await pointCurrentAt(layout, previous, rules).catch(() => undefined);
    else await rm(layout.current, { force: true }, rules).catch(() => undefined);
    throw new Error(`${layout.history} could not be written (${errnoCode(error) ?? (error as Error).message}); current was left as it was`);
  }
  return { previous };
}

/** current names `id`, with one rename. */
async function pointCurrentAt(layout: Layout, id: string, rules: LockRules): Promise<void> {
  if (layout.platform === "win32") {
    await writeFileAtomic(layout.current, `${id}\n`, 0o644, rules);
    return;
  }
  const tmp = tempSibling(layout.current);
  await fs.symlink(`versions/${id}`, tmp);
  try {
    await rename(tmp, layout.current, rules);
  } catch (error) {
    await rm(tmp, { force: true }, rules);
    throw error;
  }
}

export function parseHistory(text: string | null): string[] {
  if (!text) return [];
  const out: string[] = [];
  for (const line of text.split("\n")) {
    const id = line.trim();
    if (ID.test(id) && !out.includes(id)) out.push(id);
  }
  return out;
}

/** versions.history: activation order, newest first. */
export async function recordActivation(layout: Layout, id: string, rules: LockRules = machineRules): Promise<void> {
  const history = parseHistory(await readTextOrNull(layout.history)).filter((x) => x !== id);
  await writeFileAtomic(layout.history, [id, ...history].join("\n") + "\n", 0o644, rules);
}

/**
 * pruneVersions (spec: "Ownership rules", Pruning): keeps the active version
 * and the most recently activated other one still installed. Deletes nothing
 * unless current names a finished version; never deletes the active version,
 * an unfinished install, or a folder without our marker.
 */
export async function pruneVersions(layout: Layout, keep = 2): Promise<{ deleted: string[]; kept: string[] }> {
  const { versionState } = await import("./version-install");
  const current = await readCurrent(layout).catch(() => null);
  if (!current || (await versionState(layout, current)).kind !== "valid") return { deleted: [], kept: [] };
  const history = parseHistory(await readTextOrNull(layout.history));
  const kept = [current];
  for (const id of history) {
    if (kept.length >= keep) break;
    if (id !== current && (await versionState(layout, id)).kind === "valid") kept.push(id);
  }
  const deleted: string[] = [];
  const names = await fs.readdir(layout.versions).catch(() => [] as string[]);
  for (const id of names.sort()) {
    if (kept.includes(id) || !ID.test(id)) continue;
    const state = await versionState(layout, id);
    if (state.kind !== "valid") continue;
    await rm(join(layout.versions, id), { recursive: true, force: true });
    deleted.push(id);
  }
  if (deleted.length) {
    const rest = history.filter((id) => !deleted.includes(id));
    await writeFileAtomic(layout.history, rest.length ? rest.join("\n") + "\n" : "", 0o644);
  }
  return { deleted, kept };
}
