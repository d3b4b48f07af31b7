/**
 * A runtime's file record (issue 41): every regular file extracted from its
 * pinned archive (and what the recipe wrote beside them before publishing),
 * with its size and sha256, and every link with its target, so `doctor` can
 * tell a runtime folder as it was published from one a cleaner, an antivirus
 * or a hand changed. Pure: the text, its reading, and the comparison with
 * what a folder holds now (../io/file-tree.ts reads the folder).
 *
 * The text is JSON, one entry a line, in the order of the paths, so the same
 * folder always gives the same bytes:
 *
 *   {"record":"gentle-shell-files","version":1,"entries":[
 *   {"path":"bin/node","size":123,"sha256":"…","mode":"755"},
 *   {"path":"bin/link","link":"node"}
 *   ]}
 *
 * Paths are relative to the folder, parts joined by `/` on every platform.
 * A file that is not in the record (npm's entry written after publishing, a
 * file a user added) is not looked at. `mode` (its permission bits, in
 * octal) is written where the file system keeps POSIX modes, and compared
 * only where the record has it: a record without modes (Windows, or one
 * written before modes were recorded) is still a whole record.
 */

export const FILE_RECORD_VERSION = 1;
const KIND = "gentle-shell-files";

export type RecordedEntry = { path: string; size: number; sha256: string; mode?: number } | { path: string; link: string };

/**
 * What a recorded path holds now. A file's sha256 is null when it was not
 * read: its size already differs, so its bytes do too.
 */
export type Observed =
  | { kind: "file"; size: number; sha256: string | null; mode: number }
  | { kind: "link"; target: string }
  | { kind: "other" }
  | { kind: "missing" };

export type FileDifference = { path: string; what: "missing" | "size" | "bytes" | "mode" | "link" | "type" };

export type ParsedRecord =
  | { kind: "record"; entries: RecordedEntry[] }
  /** Written by a later gentle-shell-setup: this one cannot read it, so it checks presence only. */
  | { kind: "newer"; version: number }
  | { kind: "unreadable" };

const SHA256 = /^[0-9a-f]{64}$/;
const MODE = /^[0-7]{1,3}$/;

/** A relative path inside the folder: no empty, `.` or `..` part, no leading `/`, no backslash or NUL. */
export function safeRecordPath(path: string): boolean {
  if (!path || path.includes("\\") || path.includes("\0")) return false;
  return path.split("/").every((part) => part !== "" && part !== "." && part !== "..");
}

function byPath(a: RecordedEntry, b: RecordedEntry): number {
  return a.path < b.path ? -1 : a.path > b.path ? 1 : 0;
}

export function serializeFileRecord(entries: readonly RecordedEntry[]): string {
  const lines = [...entries]
    .sort(byPath)
    .map((e) =>
      JSON.stringify(
        "link" in e
          ? { path: e.path, link: e.link }
          : { path: e.path, size: e.size, sha256: e.sha256, ...(e.mode === undefined ? {} : { mode: (e.mode & 0o777).toString(8) }) },
      ),
    );
  return `{"record":"${KIND}","version":${FILE_RECORD_VERSION},"entries":[\n${lines.join(",\n")}\n]}\n`;
}

function entryOf(value: unknown): RecordedEntry | null {
  if (!value || typeof value !== "object") return null;
  const e = value as Record<string, unknown>;
  if (typeof e.path !== "string" || !safeRecordPath(e.path)) return null;
  if (typeof e.link === "string" && e.link !== "") return { path: e.path, link: e.link };
  if (typeof e.size === "number" && Number.isSafeInteger(e.size) && e.size >= 0 && typeof e.sha256 === "string" && SHA256.test(e.sha256)) {
    if (e.mode === undefined) return { path: e.path, size: e.size, sha256: e.sha256 };
    if (typeof e.mode !== "string" || !MODE.test(e.mode)) return null;
    return { path: e.path, size: e.size, sha256: e.sha256, mode: parseInt(e.mode, 8) };
  }
  return null;
}

/** The record's text read back; anything but a whole record of a known version is unreadable, or newer. */
export function parseFileRecord(text: string): ParsedRecord {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    return { kind: "unreadable" };
  }
  if (!doc || typeof doc !== "object") return { kind: "unreadable" };
  const { record, version, entries } = doc as Record<string, unknown>;
  if (record !== KIND || typeof version !== "number" || !Number.isInteger(version)) return { kind: "unreadable" };
  if (version > FILE_RECORD_VERSION) return { kind: "newer", version };
  if (version !== FILE_RECORD_VERSION || !Array.isArray(entries)) return { kind: "unreadable" };
  const out: RecordedEntry[] = [];
  const seen = new Set<string>();
  for (const value of entries) {
    const entry = entryOf(value);
    if (!entry || seen.has(entry.path)) return { kind: "unreadable" };
    seen.add(entry.path);
    out.push(entry);
  }
  return { kind: "record", entries: out };
}

/** How each recorded path differs from what it holds now, in the record's order; empty when none does. */
export function compareFileRecord(entries: readonly RecordedEntry[], observed: ReadonlyMap<string, Observed>): FileDifference[] {
  const out: FileDifference[] = [];
  for (const entry of entries) {
    const now = observed.get(entry.path) ?? { kind: "missing" };
    if (now.kind === "missing") out.push({ path: entry.path, what: "missing" });
    else if ("link" in entry) {
      if (now.kind !== "link") out.push({ path: entry.path, what: "type" });
      else if (now.target !== entry.link) out.push({ path: entry.path, what: "link" });
    } else if (now.kind !== "file") out.push({ path: entry.path, what: "type" });
    else if (now.size !== entry.size) out.push({ path: entry.path, what: "size" });
    else if (now.sha256 !== null && now.sha256 !== entry.sha256) out.push({ path: entry.path, what: "bytes" });
    else if (entry.mode !== undefined && (now.mode & 0o777) !== entry.mode) out.push({ path: entry.path, what: "mode" });
  }
  return out;
}

const SAYS: Record<FileDifference["what"], string> = {
  missing: "is gone",
  size: "changed size",
  bytes: "has other bytes",
  mode: "has other permissions",
  link: "points elsewhere",
  type: "is no longer what was extracted",
};

/** One phrase for a doctor line: the first `most` differences, then how many more. */
export function differencesPhrase(differences: readonly FileDifference[], most = 3): string {
  const named = differences.slice(0, most).map((d) => `${d.path} ${SAYS[d.what]}`);
  const more = differences.length - named.length;
  return more > 0 ? `${named.join(", ")} and ${more} more` : named.join(", ");
}
