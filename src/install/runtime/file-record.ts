/**
 * A runtime's file record (issue 41; ../../core/file-record.ts): written into
 * the staging folder right before the marker and the publishing rename
 * (./recipe.ts), so every folder published from now on carries one; read by
 * `doctor`, which compares the folder with it. A folder published by an
 * earlier gentle-shell-setup has none: only its files' presence is checked.
 */
import { promises as fs } from "node:fs";
import { compareFileRecord, parseFileRecord, serializeFileRecord, type FileDifference } from "../../core/file-record";
import { join } from "../../core/native-path";
import { readTextOrNull } from "../../io/files";
import { observeEntries, treeEntries } from "../../io/file-tree";
import { RUNTIME_FILES, RUNTIME_MARKER } from "./marker";

/** Record every file in `staging` (but the record and the marker) in `staging`'s record file. */
export async function writeFileRecord(staging: string): Promise<void> {
  const entries = await treeEntries(staging, [RUNTIME_FILES, RUNTIME_MARKER]);
  await fs.writeFile(join(staging, RUNTIME_FILES), serializeFileRecord(entries), { mode: 0o644 });
}

export type FileRecordCheck =
  /** `files` recorded paths, `differences` how they differ now (empty: as published). */
  | { kind: "checked"; files: number; differences: FileDifference[] }
  /** No record (published by an earlier gentle-shell-setup), or one of a later version. */
  | { kind: "unrecorded" | "newer" }
  | { kind: "unreadable" };

/** The folder `dir` against its record. */
export async function checkFileRecord(dir: string): Promise<FileRecordCheck> {
  const text = await readTextOrNull(join(dir, RUNTIME_FILES)).catch(() => "");
  if (text === null) return { kind: "unrecorded" };
  const parsed = parseFileRecord(text);
  if (parsed.kind !== "record") return { kind: parsed.kind };
  const differences = compareFileRecord(parsed.entries, await observeEntries(dir, parsed.entries));
  return { kind: "checked", files: parsed.entries.length, differences };
}
