/**
 * The recipe protocol for runtimes (spec: "Ownership rules", Runtimes). Each
 * of Node with npm, pnpm, Go and Engram is a Recipe, installed here and
 * nowhere else:
 *
 *   1. a marked folder is reused; an unmarked one is never replaced;
 *   2. the archive is fetched verified (src/install/artifact-fetch.ts) into runtime/;
 *   3. only the members the runtime needs are extracted into a staging folder
 *      of ours beside the final one (same file system);
 *   4. the runtime is run once from staging to check its version;
 *   5. for Node, pnpm and Engram, .gentle-shell-files records every file
 *      of staging (./file-record.ts: what doctor compares the folder with);
 *      .gentle-shell-runtime is written, and staging is published with one
 *      rename. If another installer published first, theirs is reused.
 *
 * Anything that fails removes the archive and the staging folder; a staging
 * folder left by an installer that died (kill -9, power loss) is removed by
 * the next run, because its name carries the dead process's id.
 */
import { errnoCode } from "../../core/errno";
import { promises as fs } from "node:fs";
import { dirname, join } from "../../core/native-path";
import type { Layout } from "../../core/layout";
import type { FilePin, Pins, Target } from "../../pins/types";
import type { Source } from "../../core/source";
import type { Env } from "../../core/environment";
import { stepMark } from "../../io/step-times";
import { publishByRename, stagingPath, sweepAbandoned } from "../../io/staging";
import type { ProgressReporter } from "../../io/progress";
import type { Expected } from "../../io/download";
import { fetchArtifact, type FetchOptions } from "../artifact-fetch";
import type { HttpClient } from "../../io/http-client";
import { ensureOwnDir } from "../../io/own-dir";
import { existingRuntime, RUNTIME_MARKER } from "./marker";
import { RECORDED_LINE, writeFileRecord } from "./file-record";
import type { WrittenFiles } from "../../io/file-tree";
import { rm } from "../../io/locked-retry";

export { existingRuntime, RUNTIME_MARKER };

export const MiB = 1024 * 1024;

export interface RuntimeContext {
  /** The Host's HTTP client: every download goes through it (its redirect policy and trust). */
  http: HttpClient;
  layout: Layout;
  pins: Pins;
  source: Source;
  target: Target;
  env: Env;
  fetch?: FetchOptions;
  /** Bars or lines for each download (src/io/progress.ts); none when absent. */
  progress?: ProgressReporter;
  /**
   * Test hook, passed only by code that builds the context (a test's own
   * script); no flag, variable or file reaches it. Called with the staging
   * folder after the marker is written, right before the rename.
   */
  beforePublish?: (name: string, staging: string) => Promise<void>;
}

export interface RuntimeOutcome {
  name: string;
  path: string;
  status: "installed" | "reused";
  /** Installed again over a marked folder that could not be reused: what was wrong with it (./verify.ts). */
  repaired?: string;
}

/** Remove our own staging folders, downloads and folders set aside, left by installers that are gone. */
export async function cleanStaleStaging(runtimeDir: string): Promise<void> {
  await sweepAbandoned(runtimeDir, ["staging", "download", "removing"]);
}

/** Publish `staging` as `dir` with one rename; if another installer won, reuse theirs. */
async function publish(staging: string, dir: string, label: string, runtimeRoot: string): Promise<"installed" | "reused"> {
  try {
    await publishByRename(staging, dir);
    return "installed";
  } catch (error) {
    const code = errnoCode(error);
    if (code === "EEXIST" || code === "ENOTEMPTY" || code === "EPERM" || code === "EISDIR") {
      await rm(staging, { recursive: true, force: true });
      if (await existingRuntime(dir, label, runtimeRoot)) return "reused";
    }
    throw error;
  }
}

/** A verified archive on its way; `take()` hands it over once, `discard()` stops it if still running and removes it whatever happened. */
export interface PendingArchive {
  take(): Promise<string>;
  discard(): Promise<void>;
}

export function startFetch(ctx: RuntimeContext, source: Source, pin: FilePin, expected: Expected, dir: string): PendingArchive {
  stepMark(`${expected.name}:fetch`, ctx.env);
  const handle = ctx.progress?.start(expected.name);
  const cancel = new AbortController();
  const promise = fetchArtifact(ctx.http, source, pin.path, dir, expected, {
    ...ctx.fetch,
    download: { ...ctx.fetch?.download, ...(handle ? { progress: handle } : {}), cancel: cancel.signal },
  });
  promise.then(
    () => stepMark(`${expected.name}:downloaded`, ctx.env),
    () => undefined,
  );
  return {
    take: () => promise,
    discard: async () => {
      // A download still running is not wanted any more (a check that had to pass first failed): it stops at once.
      cancel.abort();
      const file = await promise.catch(() => null);
      if (file) await rm(file, { force: true });
    },
  };
}

export interface Recipe {
  /** "Node 24.21.0", "pnpm 11.1.1", ... */
  name: string;
  /** The folder published with one rename. */
  dir: string;
  /** Staging name part, e.g. node-24.21.0. */
  tag: string;
  archive: PendingArchive;
  /** Extracts into staging; returns what it wrote as it wrote it (the archive's sizes and hashes), for the file record. */
  unpack(archive: string, staging: string): Promise<WrittenFiles | undefined>;
  /** Runs the runtime from staging; returns the marker's text. */
  check(staging: string): Promise<string>;
  /** Record staging's files (./file-record.ts) before publishing: the runtimes doctor checks file by file. */
  recordFiles?: boolean;
  /** After publish or reuse (Node: the npm entry). */
  after?(): Promise<void>;
}

/** A staged runtime: its folder, and the files the extraction wrote there with their sizes and sha256 (none from an unpack that says nothing). */
export interface Staged {
  dir: string;
  written: WrittenFiles | null;
}

export async function installRuntime(ctx: RuntimeContext, recipe: Recipe): Promise<RuntimeOutcome> {
  const staged = await stageRuntime(ctx, recipe);
  try {
    return await publishRuntime(ctx, recipe, staged, await recipe.check(staged.dir));
  } finally {
    await rm(staged.dir, { recursive: true, force: true });
  }
}

/**
 * Steps 2 and 3: the verified archive, extracted into a staging folder of
 * ours beside the final one; returns that folder. On failure nothing of it
 * is left. The caller removes the folder once it is published or not.
 */
export async function stageRuntime(ctx: RuntimeContext, recipe: Recipe): Promise<Staged> {
  const parent = dirname(recipe.dir);
  await ensureOwnDir(ctx.layout.prefix, parent);
  const staging = stagingPath(parent, "staging", { label: recipe.tag });
  let archive: string | null = null;
  try {
    archive = await recipe.archive.take();
    await fs.mkdir(staging, { mode: 0o755 });
    const written = (await recipe.unpack(archive, staging)) ?? null;
    stepMark(`${recipe.name}:unpacked`, ctx.env);
    await rm(archive, { force: true });
    archive = null;
    return { dir: staging, written };
  } catch (error) {
    await rm(staging, { recursive: true, force: true });
    throw error;
  } finally {
    if (archive) await rm(archive, { force: true });
    await recipe.archive.discard();
  }
}

/** Steps 4 and 5, once `marker` (the check's text) is known: the marker, then one rename. */
export async function publishRuntime(ctx: RuntimeContext, recipe: Recipe, staged: Staged, marker: string): Promise<RuntimeOutcome> {
  const staging = staged.dir;
  if (recipe.recordFiles) {
    await writeFileRecord(staging, { modes: ctx.layout.platform !== "win32", written: staged.written });
    stepMark(`${recipe.name}:recorded`, ctx.env);
  }
  await fs.writeFile(join(staging, RUNTIME_MARKER), recipe.recordFiles ? `${marker}${RECORDED_LINE}\n` : marker, { mode: 0o644 });
  await ctx.beforePublish?.(recipe.name, staging);
  const status = await publish(staging, recipe.dir, recipe.name, ctx.layout.runtime);
  stepMark(`${recipe.name}:published`, ctx.env);
  await recipe.after?.();
  return { name: recipe.name, path: recipe.dir, status };
}

/** What the pin says a download must be. */
export function expectedOf(name: string, pin: FilePin, extra: Partial<Expected> = {}): Expected {
  return { name, sha256: pin.sha256, size: pin.size, maxBytes: pin.maxBytes, ...extra };
}
