/**
 * Pi's own npm (spec: "Launcher in a bundled install", Pi's own npm). For the
 * isolated home Gentle Shell owns, the launcher sets Pi's npmCommand setting
 * to our node and our npm entry, with npm's user and global config and its
 * cache inside the prefix. Only that key is written, only when it differs; a
 * settings file that is not a JSON object is left alone with a warning.
 */
import { join } from "pathe";
import type { Layout } from "../core/layout";
import { lstatOrNull, readTextOrNull, writeFileAtomic } from "../io/files";

/**
 * No part other than the entry has the basename npm, pnpm or bun (Pi would
 * call that ambiguous), and there is no --prefix: it would also move npm's
 * local prefix for installs Pi runs inside a git clone.
 */
export function bundledNpmCommand(layout: Layout): string[] {
  return [
    layout.node,
    layout.npmEntry,
    `--userconfig=${layout.pnpm.npmrc}`,
    `--globalconfig=${layout.npm.globalconfig}`,
    `--cache=${layout.npm.cache}`,
    "--update-notifier=false",
  ];
}

export type NpmCommandResult = "unchanged" | "written" | { warning: string };

/** Pure: the new settings text, or null when the file already holds the command, or a warning. */
export function withNpmCommand(text: string | null, command: string[]): { text: string } | null | { warning: string } {
  let settings: Record<string, unknown> = {};
  if (text !== null && text.trim() !== "") {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return { warning: "its settings.json is not valid JSON" };
    }
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return { warning: "its settings.json is not a JSON object" };
    settings = parsed as Record<string, unknown>;
  }
  const current = settings.npmCommand;
  if (Array.isArray(current) && current.length === command.length && current.every((v, i) => v === command[i])) return null;
  return { text: JSON.stringify({ ...settings, npmCommand: command }, null, 2) + "\n" };
}

export async function ensurePiNpmCommand(layout: Layout): Promise<NpmCommandResult> {
  const entry = await lstatOrNull(layout.npmEntry);
  const npmCli = layout.platform === "win32"
    ? join(layout.nodeDir, "node_modules", "npm", "bin", "npm-cli.js")
    : join(layout.nodeDir, "lib", "node_modules", "npm", "bin", "npm-cli.js");
  if (!entry || !entry.isFile() || !(await lstatOrNull(npmCli))?.isFile()) {
    return { warning: `this Node runtime has no npm entry for Pi (${layout.npmEntry}); Pi runs without an npmCommand setting` };
  }
  const file = join(layout.agent, "settings.json");
  const stat = await lstatOrNull(file);
  if (stat && !stat.isFile()) return { warning: "its settings.json is not a regular file" };
  const next = withNpmCommand(stat ? await readTextOrNull(file) : null, bundledNpmCommand(layout));
  if (next === null) return "unchanged";
  if ("warning" in next) return next;
  await writeFileAtomic(file, next.text, stat ? stat.mode & 0o777 : 0o600);
  return "written";
}
