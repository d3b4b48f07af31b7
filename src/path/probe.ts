/**
 * Gathering the facts pathEntryPlan decides on (spec: "PATH", "Manual"):
 * lstat, a bounded read and the folders above every startup file and the
 * ~/.local/bin link, or the raw Windows user Path through the adapter.
 * Also the check, right before a write, that every folder above a path
 * under home is real.
 */
import { errnoCode } from "../core/errno";
import * as nodeFs from "node:fs";
import { dirname, isAbsolute, join, relative } from "../core/native-path";
import type { Env } from "../core/environment";
import type { Layout, Platform } from "../core/layout";
import type { PathFs, PathIoOptions } from "./fs";
import { NONBLOCK, O, readAll } from "../io/safe-fs";
import { modeAllowsWrite, type FileFacts, type PathFacts, type UserIds } from "./entry-plan";
import { requireRegistry } from "./windows-registry";
import { localBinLink, profileFiles } from "./shells";

/** A startup file larger than this is not read (and so never edited). */
const MAX_PROFILE = 4 * 1024 * 1024;

function currentUser(): UserIds {
  const uid = typeof process.getuid === "function" ? process.getuid() : 0;
  const gids = typeof process.getgroups === "function" ? process.getgroups() : [];
  const gid = typeof process.getgid === "function" ? process.getgid() : 0;
  return { uid, gids: gids.includes(gid) ? gids : [...gids, gid] };
}

/**
 * The folders whose realness matters for `path`: those strictly below home
 * when the file is under home; otherwise those below the top-level folder
 * (so system links such as macOS /tmp -> /private/tmp do not count).
 */
function foldersToCheck(path: string, home: string): string[] {
  const dir = dirname(path);
  const rel = relative(home, dir);
  const underHome = rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
  const base = underHome ? home : "/" + (dir.split("/")[1] ?? "");
  const parts = relative(base, dir).split("/").filter(Boolean);
  const out: string[] = [];
  let cur = base;
  for (const p of parts) {
    cur = join(cur, p);
    out.push(cur);
  }
  return out;
}

export interface FolderWalk {
  /** First folder that is a link or not a folder. */
  linked: string | null;
  /** Deepest folder that exists (home or the top when none below does). */
  deepest: string;
  /** Folders that do not exist yet, top first. */
  missing: string[];
}

export function walkFolders(path: string, home: string, fs: PathFs): FolderWalk {
  const folders = foldersToCheck(path, home);
  let deepest = folders.length ? dirname(folders[0]!) : dirname(path);
  for (let i = 0; i < folders.length; i++) {
    const d = folders[i]!;
    let st: nodeFs.Stats;
    try {
      st = fs.lstatSync(d);
    } catch (e) {
      if (errnoCode(e) === "ENOENT") return { linked: null, deepest, missing: folders.slice(i) };
      throw e;
    }
    if (!st.isDirectory()) return { linked: d, deepest, missing: [] };
    deepest = d;
  }
  return { linked: null, deepest, missing: [] };
}

/** walkFolders, refusing a link (or a non-folder) above `path`: checked again right before a write. */
export function assertRealFolders(path: string, home: string, fs: PathFs): FolderWalk {
  const walk = walkFolders(path, home, fs);
  if (walk.linked) throw new Error(`${walk.linked} is a link or not a folder; ${path} was not changed`);
  return walk;
}

function canWrite(path: string, st: nodeFs.Stats, fs: PathFs, user: UserIds): boolean {
  if (!modeAllowsWrite(st, user)) return false;
  try {
    fs.accessSync(path, fs.constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

/** lstat, a read and the folders above: what pathEntryPlan needs about one path. */
export function probeFile(path: string, home: string, options: PathIoOptions = {}): FileFacts {
  const fs = options.fs ?? nodeFs;
  const user = options.user ?? currentUser();
  const walk = walkFolders(path, home, fs);
  // Read through links, but only a regular file: a link to a FIFO or to
  // /dev/zero must not hang or flood the installer.
  const read = (): string | null => {
    let fd: number;
    try {
      fd = fs.openSync(path, O.O_RDONLY | NONBLOCK);
    } catch {
      return null;
    }
    try {
      const st = fs.fstatSync(fd);
      if (!st.isFile() || st.size > MAX_PROFILE) return null;
      return readAll(fs, fd).toString("utf8");
    } catch {
      return null;
    } finally {
      fs.closeSync(fd);
    }
  };
  if (walk.linked) {
    // Still read it: a file that already holds the line needs no plan at all.
    let node: FileFacts["node"] = "absent";
    try {
      const st = fs.lstatSync(path);
      node = st.isSymbolicLink() ? "link" : st.isFile() ? "file" : "other";
    } catch {
      /* absent, or a folder above is not a folder */
    }
    return { path, node, linkedFolder: walk.linked, writable: false, content: node === "other" ? null : read() };
  }
  let st: nodeFs.Stats;
  try {
    st = fs.lstatSync(path);
  } catch (e) {
    if (errnoCode(e) !== "ENOENT") throw e;
    let writable = false;
    try {
      writable = canWrite(walk.deepest, fs.statSync(walk.deepest), fs, user);
    } catch {
      writable = false;
    }
    return { path, node: "absent", linkedFolder: null, writable, content: null };
  }
  if (st.isSymbolicLink()) {
    let linkTarget: string | undefined;
    try {
      linkTarget = fs.readlinkSync(path);
    } catch {
      linkTarget = undefined;
    }
    return { path, node: "link", linkedFolder: null, writable: false, content: read(), linkTarget };
  }
  if (!st.isFile()) return { path, node: "other", linkedFolder: null, writable: false, content: null };
  return { path, node: "file", linkedFolder: null, writable: canWrite(path, st, fs, user), content: read() };
}

/** Everything pathEntryPlan decides on, for this layout and environment. */
export async function collectPathFacts(layout: Layout, env: Env, options: PathIoOptions & { platform?: Platform } = {}): Promise<PathFacts> {
  const platform = options.platform ?? layout.platform;
  const base = { platform, home: layout.home, env, bin: layout.bin, launcher: layout.launcher };
  if (platform === "win32") {
    const registry = requireRegistry(options.registry);
    return { ...base, files: {}, userPath: await registry.readUserPath() };
  }
  const files: Record<string, FileFacts> = {};
  for (const f of profileFiles(layout.home, env, platform)) files[f.path] = probeFile(f.path, layout.home, options);
  const link = localBinLink(layout.home);
  files[link] = probeFile(link, layout.home, options);
  if (files[link]!.node === "absent") {
    // The link goes into an existing ~/.local/bin only (it is on PATH).
    const fs = options.fs ?? nodeFs;
    try {
      if (!fs.lstatSync(dirname(link)).isDirectory()) files[link]!.writable = false;
    } catch {
      files[link]!.writable = false;
    }
  }
  return { ...base, files };
}
