/**
 * The launcher's config.json (spec: "Startup update offer", "Migration from a
 * global install"): shared by the bundled launcher and a global gentle-pi, and
 * kept by self-uninstall. Pure: what the file says and what a change writes;
 * the file itself is src/install/launcher-config-file.ts.
 */

export interface LauncherConfig {
  settings: Record<string, unknown>;
  /** Why it cannot be saved (malformed, not a file): the caller warns and continues. */
  unsavable?: string;
}

export function parseLauncherConfig(text: string | null): LauncherConfig {
  if (text === null || text.trim() === "") return { settings: {} };
  try {
    const parsed = JSON.parse(text) as unknown;
    if (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)) return { settings: parsed as Record<string, unknown> };
    return { settings: {}, unsavable: "it is not a JSON object" };
  } catch {
    return { settings: {}, unsavable: "it is not valid JSON" };
  }
}

/** The one setting changed, every other kept, as the file's text. */
export function withSetting(config: LauncherConfig, key: string, value: unknown): string {
  return JSON.stringify({ ...config.settings, [key]: value }, null, 2) + "\n";
}

/** The key a channel is recorded under; "main" there is the override a bundled install removes. */
export const CHANNEL_KEY = "channel";
export const RELEASE_CHANNEL = "release";
export const MAIN_CHANNEL = "main";

/**
 * After a successful install, the release channel is recorded and a main
 * override is removed: the new text, or null when nothing needs writing. Only
 * an absent (or null) channel or "main" is replaced; "release" already says
 * it, and any other value (a "beta" the user chose) is not ours to change.
 */
export function recordReleaseChannel(config: LauncherConfig): string | null {
  const channel = config.settings[CHANNEL_KEY];
  if (channel !== undefined && channel !== null && channel !== MAIN_CHANNEL) return null;
  return withSetting(config, CHANNEL_KEY, RELEASE_CHANNEL);
}
