/**
 * Pi's own npm (spec: "Launcher in a bundled install", Pi's own npm). For the
 * isolated home Gentle Shell owns, the launcher sets Pi's npmCommand setting
 * to our node and our npm entry, with npm's user and global config and its
 * cache inside the prefix. Only that key is written, only when it differs; a
 * settings file that is not a JSON object is left alone with a warning.
 */
import { lstatSync, readFileSync, realpathSync } from "node:fs";
import { join, normalize } from "../core/native-path";
import { npmCliOf, tildify, type Layout } from "../core/layout";
import { lstatOrNull, lstatSyncOrNull, readTextOrNull, writeFileAtomic } from "../io/files";

/**
 * No part other than the entry has the basename npm, pnpm or bun (Pi would
 * call that ambiguous), and there is no --prefix: it would also move npm's
 * local prefix for installs Pi runs inside a git clone.
 */
export function privateNpmCommand(layout: Layout): string[] {
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

/** The npm our Node bundles, which our npm entry loads. */
export { npmCliOf };

/**
 * Synchronously, whether ensurePiNpmCommand would find Pi's npmCommand as it
 * must be and write nothing ("unchanged"): a launch asks this first, and
 * anything else (a warning, a write) goes to ensurePiNpmCommand.
 */
export function piNpmCommandInPlace(layout: Layout): boolean {
  try {
    if (!lstatSync(layout.npmEntry).isFile() || !lstatSync(npmCliOf(layout)).isFile()) return false;
    if (agentHomeProblem(layout) !== null) return false;
    const file = join(layout.agent, "settings.json");
    return lstatSync(file).isFile() && withNpmCommand(readFileSync(file, "utf8"), privateNpmCommand(layout)) === null;
  } catch {
    return false;
  }
}

export async function ensurePiNpmCommand(layout: Layout): Promise<NpmCommandResult> {
  const entry = await lstatOrNull(layout.npmEntry);
  if (!entry?.isFile() || !(await lstatOrNull(npmCliOf(layout)))?.isFile()) {
    return { warning: `this Node runtime has no npm entry for Pi (${layout.npmEntry}); Pi runs without an npmCommand setting` };
  }
  const home = await agentHomeIsOurs(layout);
  if (home !== null) return { warning: home };
  const file = join(layout.agent, "settings.json");
  const stat = await lstatOrNull(file);
  if (stat && !stat.isFile()) return { warning: "its settings.json is not a regular file" };
  const next = withNpmCommand(stat ? await readTextOrNull(file) : null, privateNpmCommand(layout));
  if (next === null) return "unchanged";
  if ("warning" in next) return next;
  await writeFileAtomic(file, next.text, stat ? stat.mode & 0o777 : 0o600);
  return "written";
}

/**
 * The agent home must be Gentle Shell's own: a real folder (never a link, say
 * to the user's ~/.pi/agent) whose real path is the agent folder of the real
 * prefix. Null when it is; otherwise why its settings are left alone.
 */
export async function agentHomeIsOurs(layout: Layout): Promise<string | null> {
  return agentHomeProblem(layout);
}

/** agentHomeIsOurs, synchronously (one lstat and two realpaths). */
function agentHomeProblem(layout: Layout): string | null {
  const shown = tildify(layout.agent, layout.home);
  const stat = lstatSyncOrNull(layout.agent);
  if (!stat) return `${shown} does not exist`;
  if (stat.isSymbolicLink()) return `${shown} is a link, so it is not Gentle Shell's own home and its settings.json was left alone`;
  if (!stat.isDirectory()) return `${shown} is not a folder`;
  const owner = layout.platform === "win32" ? join(layout.home, ".gentle-shell") : layout.prefix;
  let real: string;
  let expected: string;
  try {
    real = normalize(realpathSync(layout.agent));
    expected = join(normalize(realpathSync(owner)), "agent");
  } catch {
    return `${shown} cannot be resolved`;
  }
  const same = layout.platform === "win32" ? real.toLowerCase() === expected.toLowerCase() : real === expected;
  return same ? null : `${shown} is not the agent folder of ${tildify(owner, layout.home)}, so its settings.json was left alone`;
}
