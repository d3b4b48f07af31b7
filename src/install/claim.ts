/**
 * Claiming the prefix (spec: "Migration from a global install", The prefix
 * folder; issue 39, 1), before anything is downloaded or switched.
 * ~/.gentle-shell and the agent home are created 0700 whatever the umask.
 * An existing prefix is looked at whole first: every entry at every depth,
 * through lstat, never following a link, judged by core/prefix-trust.ts.
 * One entry of another user's (or a link or non-folder at the prefix or the
 * agent home) refuses the install with one sentence, and nothing is changed.
 * Otherwise the prefix gets mode 0700 and every other entry of ours loses
 * group and other write access, each through a descriptor that does not
 * follow links and is checked to be the entry that was judged.
 *
 * The prefix may have been open to others until now, so once it is 0700 the
 * folders that were open are listed again: an entry another user slipped in
 * while the prefix was being looked at is refused too.
 */
import { errnoCode } from "../core/errno";
import * as nodeFs from "node:fs";
// node:path, not pathe: an entry's name may hold a backslash, which pathe would read as a separator (and so look elsewhere).
import { join } from "node:path";
import { EXIT, UserError } from "../core/errors";
import { type Layout, tildify } from "../core/layout";
import { childPlace, claimSummary, type EntryFacts, type EntryPlace, type EntryVerdict, judgeEntry, looksInside, refusalSentence } from "../core/prefix-trust";
import { NOFOLLOW, NONBLOCK } from "../io/safe-fs";

/** An entry's lstat facts, with the identity its mode is changed by. */
export interface EntryStat extends EntryFacts {
  dev: number;
  ino: number;
}

/** The file system the claim reads and tightens through (tests pass a model; the real one is the default). */
export interface PrefixFs {
  /** lstat, null when nothing is there. */
  lstat(path: string): EntryStat | null;
  readdir(path: string): string[];
  /** Set the permission bits of the entry at `path`, only when it is still `expected`, without following a link. */
  tighten(path: string, expected: EntryStat, mode: number): void;
  mkdir(path: string, mode: number): void;
}

type Refusal = { path: string; verdict: Extract<EntryVerdict, { action: "refuse" }> };
type Change = { path: string; stat: EntryStat; mode: number };

interface Survey {
  refused: Refusal[];
  /** The prefix's new mode, when it changes; then the other changes. */
  top: Change | null;
  inside: Change[];
  /** Folders another user could write into when they were looked at, with what they held. */
  open: Map<string, Map<string, EntryStat>>;
}

function kindOf(s: nodeFs.Stats): EntryFacts["kind"] {
  return s.isSymbolicLink() ? "link" : s.isDirectory() ? "folder" : s.isFile() ? "file" : "other";
}

export const nodePrefixFs: PrefixFs = {
  lstat(path) {
    try {
      const s = nodeFs.lstatSync(path);
      return { kind: kindOf(s), uid: s.uid, mode: s.mode, dev: s.dev, ino: s.ino };
    } catch (error) {
      if (errnoCode(error) === "ENOENT" || errnoCode(error) === "ENOTDIR") return null;
      throw error;
    }
  },
  readdir(path) {
    // As bytes: a name that is not UTF-8 would come back altered, and the entry it names would be missed.
    return nodeFs.readdirSync(path, { encoding: "buffer" }).map((raw) => {
      const name = raw.toString("utf8");
      if (!Buffer.from(name, "utf8").equals(raw)) throw Object.assign(new Error(`${path} holds a name that is not UTF-8`), { code: "EILSEQ" });
      return name;
    });
  },
  tighten(path, expected, mode) {
    const folder = expected.kind === "folder" ? nodeFs.constants.O_DIRECTORY : 0;
    const fd = nodeFs.openSync(path, nodeFs.constants.O_RDONLY | NOFOLLOW | NONBLOCK | folder);
    try {
      const s = nodeFs.fstatSync(fd);
      if (s.dev !== expected.dev || s.ino !== expected.ino || s.uid !== expected.uid) throw new Error(`${path} changed while it was being claimed`);
      nodeFs.fchmodSync(fd, mode);
    } finally {
      nodeFs.closeSync(fd);
    }
  },
  mkdir(path, mode) {
    try {
      nodeFs.mkdirSync(path, { mode });
    } catch (error) {
      if (errnoCode(error) !== "EEXIST") throw error;
    }
  },
};

/** A folder's names; none when it went away meanwhile. */
function names(fs: PrefixFs, path: string, shown: string): string[] {
  try {
    return fs.readdir(path);
  } catch (error) {
    if (errnoCode(error) === "ENOENT" || errnoCode(error) === "ENOTDIR") return [];
    if (errnoCode(error) === "EILSEQ") {
      throw new UserError(
        `${shown} holds an entry whose name is not UTF-8, which the installer cannot check, so nothing was changed; rename or remove it, then run the installer again.`,
        EXIT.unchanged,
      );
    }
    throw new UserError(
      `${shown} could not be read (${errnoCode(error) ?? "unknown"}), so the Gentle Shell folder cannot be checked and nothing was changed; make it readable or remove it, then run the installer again.`,
      EXIT.unchanged,
    );
  }
}

/** Every entry of an existing prefix, breadth first (so a refused entry named is the shallowest), judged and never changed. */
function survey(layout: Layout, fs: PrefixFs, self: number | null, top: EntryStat): Survey {
  const result: Survey = { refused: [], top: null, inside: [], open: new Map() };
  /** Records the verdict on one entry; whether to look inside it. */
  const judge = (path: string, stat: EntryStat, place: EntryPlace): boolean => {
    const verdict = judgeEntry(stat, self, place);
    if (verdict.action === "refuse") result.refused.push({ path, verdict });
    else if (verdict.action === "tighten" && place === "prefix") result.top = { path, stat, mode: verdict.mode };
    else if (verdict.action === "tighten") result.inside.push({ path, stat, mode: verdict.mode });
    return looksInside(stat, verdict);
  };
  if (!judge(layout.prefix, top, "prefix")) return result;
  let level: { path: string; place: EntryPlace; stat: EntryStat }[] = [{ path: layout.prefix, place: "prefix", stat: top }];
  while (level.length) {
    const next: typeof level = [];
    for (const folder of level) {
      const held = new Map<string, EntryStat>();
      for (const name of names(fs, folder.path, tildify(folder.path, layout.home))) {
        const path = join(folder.path, name);
        const stat = fs.lstat(path);
        if (!stat) continue;
        held.set(name, stat);
        const place = childPlace(folder.place, path === layout.agent);
        if (judge(path, stat, place)) next.push({ path, place, stat });
      }
      if (self !== null && folder.stat.mode & 0o022) result.open.set(folder.path, held);
    }
    level = next;
  }
  return result;
}

function refuse(layout: Layout, refused: Refusal[], done?: string): never {
  const first = refused[0]!;
  const sentence = refusalSentence(tildify(first.path, layout.home), first.verdict, refused.length - 1);
  // Blocked before it changed anything (exit 4), unless the prefix's mode was already set when a late entry was found.
  throw done ? new UserError(sentence.replace("nothing was changed", done)) : new UserError(sentence, EXIT.unchanged);
}

/** What another user may have put in an open folder while the prefix was looked at: entries new there, or not the ones seen. */
function slippedIn(layout: Layout, fs: PrefixFs, self: number | null, s: Survey): Refusal[] {
  const refused: Refusal[] = [];
  for (const [folder, held] of s.open) {
    for (const name of names(fs, folder, tildify(folder, layout.home))) {
      const path = join(folder, name);
      const stat = fs.lstat(path);
      const seen = held.get(name);
      if (!stat || (seen && seen.dev === stat.dev && seen.ino === stat.ino && seen.uid === stat.uid)) continue;
      const verdict = judgeEntry(stat, self, "inside");
      if (verdict.action === "refuse") refused.push({ path, verdict });
    }
  }
  return refused;
}

export interface ClaimOptions {
  fs?: PrefixFs;
  /** Our uid; null where there are no POSIX owners. */
  self?: number | null;
}

/** Claim the prefix and the agent home; the claim step's detail. Throws a UserError, changing nothing, on anything it cannot trust. */
export async function claimPrefix(layout: Layout, options: ClaimOptions = {}): Promise<string> {
  const fs = options.fs ?? nodePrefixFs;
  const self = options.self !== undefined ? options.self : typeof process.getuid === "function" ? process.getuid() : null;
  const before = fs.lstat(layout.prefix);
  // A new prefix is judged like an existing one: another user may have made it first, and the umask may have taken bits from 0700.
  if (!before) fs.mkdir(layout.prefix, 0o700);
  const top = before ?? fs.lstat(layout.prefix);
  if (!top) throw new UserError(`${tildify(layout.prefix, layout.home)} could not be created`);
  const s = survey(layout, fs, self, top);
  if (s.refused.length) refuse(layout, s.refused);
  // The prefix first: once it is 0700 no other user reaches anything below it by path.
  if (s.top) fs.tighten(layout.prefix, s.top.stat, s.top.mode);
  const late = slippedIn(layout, fs, self, s);
  if (late.length) refuse(layout, late, s.top ? `only the Gentle Shell folder's mode was changed (to 0${s.top.mode.toString(8)})` : undefined);
  for (const change of s.inside) fs.tighten(change.path, change.stat, change.mode);
  if (!fs.lstat(layout.agent)) {
    fs.mkdir(layout.agent, 0o700);
    const made = fs.lstat(layout.agent);
    const verdict = made ? judgeEntry(made, self, "agent") : null;
    if (!made || verdict?.action === "refuse") {
      throw new UserError(
        refusalSentence(tildify(layout.agent, layout.home), verdict?.action === "refuse" ? verdict : { action: "refuse", why: "not-folder" }),
      );
    }
    if (self !== null && (made.mode & 0o7777) !== 0o700) fs.tighten(layout.agent, made, 0o700);
  }
  return claimSummary(!before, s.top?.mode ?? null, s.inside.length);
}
