/**
 * Removing a folder and everything below it without ever following a link,
 * at any depth (spec: "Self-uninstall", Removed: "no link inside them is
 * followed"; issue 39, defect 3), even while another process renames a
 * folder of the tree and a link to a folder outside it into each other's
 * place.
 *
 * Why the working folder. Node has no unlinkat, openat or fdopendir: every
 * fs call takes a path, and the kernel resolves that path again, one folder
 * at a time, at each call. A check of a folder (an lstat, or an fstat of a
 * descriptor opened with O_NOFOLLOW) is therefore always followed by a
 * moment in which a folder above the entry may become a link, and the unlink
 * then goes into the link's target. A relative path is the exception: it is
 * resolved from the process's working folder, which the kernel holds as the
 * folder itself, not as its name. So the walk enters a folder with
 * chdir(name) and then checks that stat(".") is the very folder (dev, ino)
 * the lstat of that name saw; from there readdir("."), lstat(name),
 * unlink(name) and rmdir(name) act on that folder's own entries whatever is
 * renamed meanwhile, as the *at calls would with a descriptor of it. unlink
 * and rmdir never follow the last name's link (a link is removed itself;
 * rmdir of a link fails). A link swapped in between the lstat and the chdir
 * is caught by the check before anything is read in its target; the walk
 * then enters its folders again from the root, each checked the same way,
 * and meets the moved folder again under whatever name it has now.
 *
 * The working folder is the process's own, so it is changed only inside one
 * synchronous section that restores it before returning: no other code of
 * this process runs meanwhile, and the rest of the code hands absolute paths
 * to the thread pool. After SECTION entries the section ends, so a large
 * store does not hold the event loop, and the next one enters the chain of
 * folders again from the root, checking each (dev, ino). A root that is no
 * longer the folder it was stops the removal with a RemoveError.
 *
 * Windows. Node's lstat reads a junction or a folder symlink as a link, so it
 * is removed itself (unlink removes the reparse point) and never entered.
 * Windows resolves a relative name through the working folder's path rather
 * than its handle, but it refuses to rename or remove a folder while the
 * working folder is it or lies below it, so the chain being worked in stays
 * where the checks found it. Under Wine no links can be made, and the same
 * walk applies. A refusal that may be a scanner's hold (core/held-file.ts)
 * ends the section, waits as io/locked-retry.ts does, and tries again.
 */
import { errnoCode } from "../core/errno";
import { type BigIntStats, lstatSync, readdirSync, rmdirSync, statSync, unlinkSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { heldWaits, mayBeHeld } from "../core/held-file";
import { type LockRules, machineRules, unlink } from "./locked-retry";

/** A removal that failed: the deepest path that would not go, and why. */
export class RemoveError extends Error {
  constructor(
    readonly path: string,
    readonly code: string,
  ) {
    super(`${path} could not be removed (${code})`);
  }
}

/** What a RemoveError says when the tree moved under the walk. */
export const CHANGED = "it changed while it was being removed";

/** Entries one synchronous section handles before it gives the event loop back. */
const SECTION = 1000;
/** Listings in a row that removed nothing, all entries having changed under the walk, before it gives up. */
const FRUITLESS = 100;

/** A file's identity as the plan recorded it (Stats' numbers). */
export interface Identity {
  dev: number | bigint;
  ino: number | bigint;
}

function same(a: BigIntStats, b: Identity): boolean {
  return typeof b.ino === "bigint" ? a.dev === b.dev && a.ino === b.ino : Number(a.dev) === Number(b.dev) && Number(a.ino) === b.ino;
}

/** A folder the walk has entered: its path (for errors), its identity, its listing and how far it got. */
interface Frame {
  path: string;
  name: string;
  id: BigIntStats;
  names: string[] | null;
  next: number;
}

/** An unlink or rmdir refused in a way that may be a scanner's hold: the section ends and the driver waits. */
interface Held {
  path: string;
  error: unknown;
}

class Walk {
  readonly frames: Frame[];
  fruitless = 0;
  constructor(
    readonly root: string,
    rootId: BigIntStats,
    readonly parentId: BigIntStats,
    readonly platform: string,
  ) {
    this.frames = [{ path: root, name: root, id: rootId, names: null, next: 0 }];
  }
}

const lstat = (name: string) => lstatSync(name, { bigint: true });
const here = () => statSync(".", { bigint: true });

/** chdir into `name` and check it is `id`; false (and the working folder unknown) when it is not, or is gone. */
function enter(name: string, id: BigIntStats, path: string): boolean {
  try {
    process.chdir(name);
  } catch (error) {
    if (["ENOENT", "ENOTDIR", "ELOOP"].includes(errnoCode(error) ?? "")) return false;
    throw new RemoveError(path, errnoCode(error) ?? "unknown");
  }
  return same(here(), id);
}

/**
 * Into the deepest folder of the chain again, from the root, each checked. A
 * folder that is no longer itself is dropped with those below it: it is met
 * again under its parent's next listing. The root itself must hold.
 */
function reenter(walk: Walk): void {
  for (;;) {
    if (!enter(walk.root, walk.frames[0]!.id, walk.root)) throw new RemoveError(walk.root, CHANGED);
    const lost = walk.frames.findIndex((f, i) => i > 0 && !enter(f.name, f.id, f.path));
    if (lost < 0) return;
    walk.frames.length = lost;
    // The parent's listing is read again, so the moved folder is found under its new name.
    walk.frames[lost - 1]!.names = null;
  }
}

/** The refusal may be a scanner's hold (Windows), so it is tried again after a wait; anything else fails here. */
function refused(walk: Walk, path: string, error: unknown): Held {
  if (mayBeHeld(walk.platform, errnoCode(error))) return { path, error };
  throw new RemoveError(path, errnoCode(error) ?? "unknown");
}

/** The entry's lstat, or null when it is gone (renamed away meanwhile). */
function lstatOrNull(name: string, path: string): BigIntStats | null {
  try {
    return lstat(name);
  } catch (error) {
    if (errnoCode(error) === "ENOENT" || errnoCode(error) === "ENOTDIR") return null;
    throw new RemoveError(path, errnoCode(error) ?? "unknown");
  }
}

/** A name in the working folder that is not a folder: unlinked, never followed. */
function removeFile(walk: Walk, frame: Frame, name: string): "done" | "skip" | Held {
  const path = join(frame.path, name);
  try {
    unlinkSync(name);
    return "done";
  } catch (error) {
    if (errnoCode(error) === "ENOENT") return "skip";
    // A folder renamed into this name since its lstat (EISDIR; EPERM on macOS and Windows): the next listing enters it.
    if (lstatOrNull(name, path)?.isDirectory()) return "skip";
    return refused(walk, path, error);
  }
}

/** rmdir of a name in the working folder; "skip" when something was put in it or swapped in meanwhile. */
function removeFolder(walk: Walk, name: string, path: string): "done" | "skip" | Held {
  try {
    rmdirSync(name);
    return "done";
  } catch (error) {
    if (errnoCode(error) === "ENOENT") return "done";
    if (["ENOTEMPTY", "EEXIST", "ENOTDIR"].includes(errnoCode(error) ?? "")) return "skip";
    return refused(walk, path, error);
  }
}

/**
 * Up from the emptied deepest folder, and rmdir it only while its name is
 * still that very folder. Otherwise it was renamed away or replaced, and the
 * parent's next listing meets it again.
 */
function leave(walk: Walk): "done" | "skip" | Held {
  const done = walk.frames.pop()!;
  const parent = walk.frames.at(-1);
  if (parent) {
    try {
      process.chdir("..");
      if (!same(here(), parent.id)) reenter(walk);
    } catch (error) {
      if (error instanceof RemoveError) throw error;
      reenter(walk);
    }
    const stat = lstatOrNull(done.name, done.path);
    if (!stat || !same(stat, done.id)) return "skip";
    return removeFolder(walk, done.name, done.path);
  }
  // The root, from its parent folder, entered by its path and checked.
  const up = dirname(walk.root);
  if (!enter(up, walk.parentId, up)) throw new RemoveError(walk.root, CHANGED);
  const stat = lstatOrNull(basename(walk.root), walk.root);
  if (!stat) return "done";
  if (!same(stat, done.id)) throw new RemoveError(walk.root, CHANGED);
  const result = removeFolder(walk, basename(walk.root), walk.root);
  if (result !== "done") {
    // Something was put in it meanwhile: the walk goes on inside it (a hold: after the wait).
    walk.frames.push({ ...done, names: null, next: 0 });
    if (result === "skip") reenter(walk);
  }
  return result;
}

/**
 * One synchronous section: into the chain, then entries until the budget is
 * spent, the tree is gone ("done"), or a refusal may be a hold. The working
 * folder is back where it was before this returns or throws.
 */
function section(walk: Walk): "done" | "more" | Held {
  let saved: string | null;
  try {
    saved = process.cwd();
  } catch {
    saved = null;
  }
  try {
    reenter(walk);
    return entries(walk);
  } catch (error) {
    if (error instanceof RemoveError) throw error;
    throw new RemoveError(walk.frames.at(-1)?.path ?? walk.root, errnoCode(error) ?? "unknown");
  } finally {
    try {
      process.chdir(saved ?? dirname(walk.root));
    } catch {
      // The folder we started in was inside the tree and is gone: the tree's parent instead.
      process.chdir(dirname(walk.root));
    }
  }
}

/** Entries of the chain's deepest folder (the working folder), until SECTION of them are done. */
function entries(walk: Walk): "done" | "more" | Held {
  for (let budget = SECTION; budget > 0; budget--) {
    const frame = walk.frames.at(-1)!;
    frame.names ??= readdirSync(".");
    if (frame.next >= frame.names.length) {
      // Read once more when done: what was renamed in meanwhile still goes.
      const again = readdirSync(".");
      if (again.length) {
        if (++walk.fruitless > FRUITLESS) throw new RemoveError(frame.path, CHANGED);
        frame.names = again;
        frame.next = 0;
        continue;
      }
      const result = leave(walk);
      if (result === "done") walk.fruitless = 0;
      if (typeof result === "object") return result;
      if (!walk.frames.length) return "done";
      continue;
    }
    const name = frame.names[frame.next++]!;
    const stat = lstatOrNull(name, join(frame.path, name));
    if (!stat) continue;
    if (stat.isDirectory()) {
      if (enter(name, stat, join(frame.path, name))) {
        walk.frames.push({ path: join(frame.path, name), name, id: stat, names: null, next: 0 });
        walk.fruitless = 0;
      } else {
        // A link swapped in between the lstat and the chdir: nothing there is touched.
        reenter(walk);
      }
      continue;
    }
    const result = removeFile(walk, frame, name);
    if (result === "done") walk.fruitless = 0;
    if (typeof result === "object") {
      frame.next--;
      return result;
    }
  }
  return "more";
}

/**
 * Remove `path` and everything below it, never following a link (a link is
 * removed itself, its target never touched). `expected`, when given, is the
 * identity the caller checked (a plan's lstat): anything else at `path` is
 * refused. Throws a RemoveError naming the entry that would not go.
 */
export async function removeTree(path: string, expected?: Identity, rules: LockRules = machineRules): Promise<void> {
  const root = resolve(path);
  let stat: BigIntStats;
  let parentId: BigIntStats;
  try {
    stat = lstat(root);
    parentId = statSync(dirname(root), { bigint: true });
  } catch (error) {
    if (errnoCode(error) === "ENOENT") return;
    throw new RemoveError(root, errnoCode(error) ?? "unknown");
  }
  if (expected && !same(stat, expected)) throw new RemoveError(root, CHANGED);
  if (!stat.isDirectory()) {
    // unlink never follows the last name's link: a link at the root is removed itself.
    await unlink(root, rules).catch((error: unknown) => {
      if (errnoCode(error) !== "ENOENT") throw new RemoveError(root, errnoCode(error) ?? "unknown");
    });
    return;
  }
  const walk = new Walk(root, stat, parentId, rules.platform);
  const waits = heldWaits();
  // The waits are each held entry's own: a scanner that holds many files for a moment each does not use them up.
  let held = { path: "", tries: 0 };
  for (;;) {
    const result = section(walk);
    if (result === "done") return;
    if (result === "more") {
      await new Promise<void>((resolve) => setImmediate(resolve));
      continue;
    }
    if (result.path !== held.path) held = { path: result.path, tries: 0 };
    if (held.tries >= waits.length) throw new RemoveError(result.path, errnoCode(result.error) ?? "unknown");
    await rules.sleep(waits[held.tries++]!);
  }
}
