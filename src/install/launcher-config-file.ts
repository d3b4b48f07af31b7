/**
 * The launcher's config.json on disk: read once, changed one setting at a
 * time, never replaced when it is not a regular JSON object file of ours to
 * rewrite. The startup offer's "Skip this version" and the install's release
 * channel both write through here.
 */
import { join } from "../core/native-path";
import type { Env } from "../core/environment";
import { tildify, type Layout } from "../core/layout";
import { parseLauncherConfig, recordReleaseChannel, type LauncherConfig } from "../core/launcher-settings";
import { ensureRealFolder, lstatOrNull, readTextOrNull, writeFileAtomic } from "../io/files";

/** GENTLE_SHELL_CONFIG when set, else config/config.json in the prefix. */
export function launcherConfigPath(layout: Layout, env: Env): string {
  return env.GENTLE_SHELL_CONFIG || join(layout.config, "config.json");
}

export interface LauncherConfigFile {
  path: string;
  config: LauncherConfig;
  /** The file's own permission bits, kept on a rewrite; null when there is no file yet. */
  mode: number | null;
}

export async function readLauncherConfig(layout: Layout, env: Env): Promise<LauncherConfigFile> {
  const path = launcherConfigPath(layout, env);
  const stat = await lstatOrNull(path);
  if (stat && !stat.isFile()) return { path, config: { settings: {}, unsavable: "it is not a regular file" }, mode: null };
  return { path, config: parseLauncherConfig(stat ? await readTextOrNull(path) : null), mode: stat ? stat.mode & 0o777 : null };
}

/** The new text in place of the file read: its mode kept, 0600 when new; the default file's folder made 0700. */
export async function saveLauncherConfig(layout: Layout, env: Env, file: LauncherConfigFile, text: string): Promise<void> {
  // The default file lives in config/, which an install without --source never made.
  if (!env.GENTLE_SHELL_CONFIG) await ensureRealFolder(layout.config, 0o700);
  await writeFileAtomic(file.path, text, file.mode ?? 0o600);
}

/**
 * After a successful install: the release channel recorded where none was, a
 * main override replaced, any other channel and every other setting kept. Returns a warning
 * sentence when the file could not be changed; the install stands either way.
 */
export async function recordChannel(layout: Layout, env: Env, home: string): Promise<string | null> {
  const path = launcherConfigPath(layout, env);
  try {
    const file = await readLauncherConfig(layout, env);
    if (file.config.unsavable) {
      return `${tildify(path, home)} was left as it is because ${file.config.unsavable}, so the release channel is not recorded there; fix or remove it if a global gentle-pi should follow releases too.`;
    }
    const text = recordReleaseChannel(file.config);
    if (text !== null) await saveLauncherConfig(layout, env, file, text);
    return null;
  } catch (error) {
    return `Could not record the release channel in ${tildify(path, home)} (${(error as Error).message}); Gentle Shell is installed and follows releases anyway.`;
  }
}
