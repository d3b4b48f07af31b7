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

/** The key a channel is recorded under; "main" (or any other value) there is an override a bundled install removes. */
export const CHANNEL_KEY = "channel";
export const RELEASE_CHANNEL = "release";

/**
 * After a successful install, the release channel is recorded and a main
 * override is removed: the new text, or null when the file already says
 * release and nothing needs writing.
 */
export function recordReleaseChannel(config: LauncherConfig): string | null {
  if (config.settings[CHANNEL_KEY] === RELEASE_CHANNEL) return null;
  return withSetting(config, CHANNEL_KEY, RELEASE_CHANNEL);
}
