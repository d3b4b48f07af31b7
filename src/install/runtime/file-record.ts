/**
 * A runtime's file record (issue 41; ../../core/file-record.ts): written into
 * the staging folder right before the marker and the publishing rename
 * (./recipe.ts), so every folder published from now on carries one; read by
 * `doctor` and by an install that reuses the folder (./verify.ts), which
 * compare the folder with it. The marker then carries RECORDED_LINE, so a
 * record deleted later is told from a folder published by an earlier
 * gentle-shell-setup, which has none: only its files' presence is checked.
 */
import { promises as fs } from "node:fs";
import { compareFileRecord, parseFileRecord, serializeFileRecord, type FileDifference } from "../../core/file-record";
import { join } from "../../core/native-path";
import { readTextOrNull } from "../../io/files";
import { observeEntries, treeEntries, type WrittenFiles } from "../../io/file-tree";
import { RUNTIME_FILES, RUNTIME_MARKER } from "./marker";

/** The marker's line that says a record was written beside it. */
export const RECORDED_LINE = `files recorded in ${RUNTIME_FILES}`;

/**
 * Record every file in `staging` (but the record and the marker) in `staging`'s record file; `modes` where the file
 * system keeps them; `written`: the files the extraction hashed as it wrote them, not read again.
 */
export async function writeFileRecord(staging: string, options: { modes?: boolean; written?: WrittenFiles | null } = {}): Promise<void> {
  const entries = await treeEntries(staging, [RUNTIME_FILES, RUNTIME_MARKER], options);
  await fs.writeFile(join(staging, RUNTIME_FILES), serializeFileRecord(entries), { mode: 0o644 });
}

export type FileRecordCheck =
  /** `files` recorded paths, `differences` how they differ now (empty: as published). */
  | { kind: "checked"; files: number; differences: FileDifference[] }
  /** No record (published by an earlier gentle-shell-setup), or one of a later version. */
  | { kind: "unrecorded" | "newer" }
  /** The marker says a record was written, and it is gone. */
  | { kind: "deleted" }
  | { kind: "unreadable" };

/** The folder `dir` against its record; `hash: false` compares sizes, types, modes and links, not bytes. */
export async function checkFileRecord(dir: string, options: { hash?: boolean } = {}): Promise<FileRecordCheck> {
  const text = await readTextOrNull(join(dir, RUNTIME_FILES)).catch(() => "");
  if (text === null) {
    const marker = await readTextOrNull(join(dir, RUNTIME_MARKER)).catch(() => null);
    return marker?.split(/\r?\n/).includes(RECORDED_LINE) ? { kind: "deleted" } : { kind: "unrecorded" };
  }
  const parsed = parseFileRecord(text);
  if (parsed.kind !== "record") return { kind: parsed.kind };
  const differences = compareFileRecord(parsed.entries, await observeEntries(dir, parsed.entries, options));
  return { kind: "checked", files: parsed.entries.length, differences };
}
