/**
 * Whether setup has run in this prefix, for first-use setup
 * (src/engine/first-use.ts): <prefix>/config/setup.json, a regular file of
 * mode 0600 in config/ (0700), like the launcher's config.json.
 *
 *  - `gentle-shell setup` records it when it succeeds (the installer's setup
 *    step runs that command too).
 *  - First-use setup claims it before it starts (created exclusively, so two
 *    first launches at once run setup once) and records how it ended.
 *
 * Anything at that path counts as "has run": first-use setup never runs a
 * second time, whatever the file says. The record is for people reading it.
 * self-uninstall removes it with the rest of config/.
 */
import { errnoCode } from "../core/errno";
import { promises as fs } from "node:fs";
import { join } from "../core/native-path";
import type { Layout } from "../core/layout";
import { ensureRealFolder, lstatOrNull, writeFileAtomic } from "../io/files";

export interface SetupRecord {
  schema: 1;
  /** started: first-use setup claimed it; done and failed: how a run ended. */
  status: "started" | "done" | "failed";
  /** doctor: `doctor --fix` wrote back a record that was lost, setup's work being in place. */
  by: "setup" | "first-use" | "doctor";
  /** The version (versions/<id>) whose Gentle AI ran. */
  version: string;
  at: string;
  reason?: string;
}

export function setupMarkerPath(layout: Layout): string {
  return join(layout.config, "setup.json");
}

function text(record: Omit<SetupRecord, "schema" | "at">): string {
  const full: SetupRecord = { schema: 1, ...record, at: new Date().toISOString() };
  return JSON.stringify(full, null, 2) + "\n";
}

export async function setupHasRun(layout: Layout): Promise<boolean> {
  return (await lstatOrNull(setupMarkerPath(layout))) !== null;
}

/** Claim first-use setup: false when the marker is already there (setup ran, or another launch claimed it). */
export async function claimFirstUse(layout: Layout, version: string): Promise<boolean> {
  await ensureRealFolder(layout.config, 0o700);
  try {
    await fs.writeFile(setupMarkerPath(layout), text({ status: "started", by: "first-use", version }), { flag: "wx", mode: 0o600 });
    return true;
  } catch (error) {
    if (errnoCode(error) === "EEXIST") return false;
    throw error;
  }
}

/** Record how a setup run ended, replacing the marker with one rename. */
export async function recordSetup(layout: Layout, record: Omit<SetupRecord, "schema" | "at">): Promise<void> {
  await ensureRealFolder(layout.config, 0o700);
  await writeFileAtomic(setupMarkerPath(layout), text(record), 0o600);
}
