/**
 * Whether a marked runtime of ours can be reused as it is (issue 47, item 1):
 * the files the install runs from it are there, and the folder matches the
 * record written when it was extracted from its pinned archive
 * (./file-record.ts). Asked by `doctor` for its lines and by every install
 * that finds the folder already there, which repairs it as doctor does: the
 * folder moved aside with one rename (a staging name of this process, so a
 * kill leaves a leftover the next run removes, never a half folder with our
 * marker), then downloaded again, checked against its pin, published by
 * rename (./index.ts).
 */
import { npmCliOf, tildify, type Layout } from "../../core/layout";
import { differencesPhrase } from "../../core/file-record";
import type { Env } from "../../core/environment";
import { lstatOrNull } from "../../io/files";
import { rename, rm } from "../../io/locked-retry";
import { stagingPath } from "../../io/staging";
import { stepMark } from "../../io/step-times";
import { checkFileRecord } from "./file-record";

export type OurRuntime = "node" | "pnpm" | "engram";

/** How far a reused folder is checked: every byte (an install over an existing one), or sizes, types, modes and links. */
export type VerifyDepth = "bytes" | "sizes";

/** The files the install runs from a runtime: gone, and the runtime is incomplete. */
export function runtimeFiles(layout: Layout, name: OurRuntime): string[] {
  if (name === "node") return [layout.node, npmCliOf(layout)];
  if (name === "pnpm") return [layout.pnpmEntry];
  return [layout.engram];
}

export function runtimeDir(layout: Layout, name: OurRuntime): string {
  return name === "node" ? layout.nodeDir : name === "pnpm" ? layout.pnpmDir : layout.engramDir;
}

export interface RuntimeHealth {
  /** What is wrong with it (the rest of a sentence after its name), or null. */
  broken: string | null;
  /** Nothing is known wrong with its files, but its record is gone: a doctor warning, a repair for an install. */
  unrecorded: string | null;
  /** How far its files were checked, for doctor's ok line. */
  checked: string;
}

async function firstMissing(files: string[]): Promise<string | null> {
  for (const f of files) if (!(await lstatOrNull(f))?.isFile()) return f;
  return null;
}

/**
 * A marked runtime of ours against its record. A folder without a record was
 * published by an earlier gentle-shell-setup: its files can only be checked
 * for presence, and nothing is known to be wrong. One whose marker says a
 * record was written, and which has none now, cannot be checked either: that
 * is told, not taken as ok.
 */
export async function runtimeHealth(layout: Layout, name: OurRuntime, depth: VerifyDepth = "bytes"): Promise<RuntimeHealth> {
  const none = { broken: null, unrecorded: null };
  const gone = await firstMissing(runtimeFiles(layout, name));
  if (gone) return { ...none, broken: `is incomplete: ${tildify(gone, layout.home)} is gone`, checked: "" };
  const record = await checkFileRecord(runtimeDir(layout, name), { hash: depth === "bytes" });
  if (record.kind === "unreadable") return { ...none, broken: "has an unreadable file record, so its files cannot be checked", checked: "" };
  if (record.kind === "deleted") return { ...none, unrecorded: "has lost its file record .gentle-shell-files, so its files cannot be checked", checked: "" };
  if (record.kind === "checked" && record.differences.length) {
    return { ...none, broken: `differs from its pinned archive: ${differencesPhrase(record.differences)}`, checked: "" };
  }
  if (record.kind === "checked") return { ...none, checked: `, ${record.files} file${record.files === 1 ? "" : "s"} as extracted from its pinned archive` };
  if (record.kind === "newer") return { ...none, checked: ", files checked for presence only: a later gentle-shell-setup recorded them" };
  return { ...none, checked: ", files checked for presence only: it was installed before gentle-shell-setup recorded them" };
}

/** Move a runtime's folder out of the way with one rename, then remove it; the kill test's mark sits between the two. */
export async function moveRuntimeAside(layout: Layout, name: OurRuntime, env: Env): Promise<void> {
  const aside = stagingPath(layout.runtime, "removing", { label: name });
  await rename(runtimeDir(layout, name), aside);
  stepMark(`${name}:aside`, env);
  await rm(aside, { recursive: true, force: true });
}

/**
 * For an install that finds `name`'s marked folder: null when it can be
 * reused, else why it is not, after moving it aside (the caller downloads it
 * again).
 */
export async function setAsideIfBroken(layout: Layout, name: OurRuntime, env: Env, depth: VerifyDepth): Promise<string | null> {
  const health = await runtimeHealth(layout, name, depth);
  const why = health.broken ?? health.unrecorded;
  if (!why) return null;
  await moveRuntimeAside(layout, name, env);
  return why;
}
