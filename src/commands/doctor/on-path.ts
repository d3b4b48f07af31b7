/**
 * Every gentle-shell and gentle-pi on PATH (issue 41), each named once by
 * its real path: two PATH entries that reach the same file (our bin and the
 * ~/.local/bin link, or one folder written twice) are one command, however
 * many entries reach it. Each gets its manager: ours (inside this prefix),
 * npm or pnpm (a global gentle-pi package's bin, told by where its real file
 * lies), or unknown. Nothing is run: the files are only looked at.
 */
import { promises as fs } from "node:fs";
import { envValue, type Env } from "../../core/environment";
import { isWithin, tildify, type Layout } from "../../core/layout";
import { join } from "../../core/native-path";
import { pathEntries } from "../../path/entry-plan";
import { commandFileNames } from "../../path/shells";
import { isCommandFile } from "../../path/step";
import type { Check } from "./plan";

export const PATH_COMMANDS = ["gentle-shell", "gentle-pi"] as const;
export type Manager = "ours" | "npm" | "pnpm" | "unknown";

export interface FoundCommand {
  name: string;
  /** The real file (links followed). */
  real: string;
  /** The PATH entries' files that reach it, in PATH order. */
  via: string[];
  /** Its first PATH entry's position. */
  position: number;
  manager: Manager;
}

/** Who installed a command, from its real path alone. Pure. */
export function managerOf(real: string, ourPrefix: string): Manager {
  if (isWithin(ourPrefix, real)) return "ours";
  const parts = real.split(/[\\/]/);
  const at = parts.lastIndexOf("node_modules");
  if (at < 0 || !["gentle-pi", "gentle-shell"].includes(parts[at + 1] ?? "")) return "unknown";
  return parts.slice(0, at).some((p) => p === "pnpm" || p.startsWith(".pnpm") || p === "pnpm-global") ? "pnpm" : "npm";
}

/** The commands on `env`'s PATH, grouped by real file. */
export async function commandsOnPath(layout: Layout, env: Env): Promise<FoundCommand[]> {
  const ourPrefix = await fs.realpath(layout.prefix).catch(() => layout.prefix);
  const found = new Map<string, FoundCommand>();
  const entries = pathEntries(envValue(env, "PATH", layout.platform), layout.platform);
  entries.forEach((dir, position) => {
    for (const name of PATH_COMMANDS) {
      for (const file of commandFileNames(name, layout.platform, env)) {
        const full = join(dir, file);
        if (!isCommandFile(full, { platform: layout.platform })) continue;
        found.set(full, { name, real: full, via: [full], position, manager: "unknown" });
      }
    }
  });
  const byReal = new Map<string, FoundCommand>();
  for (const f of found.values()) {
    const real = await fs.realpath(f.real).catch(() => f.real);
    const seen = byReal.get(real);
    if (seen) seen.via.push(...f.via.filter((v) => !seen.via.includes(v)));
    else byReal.set(real, { ...f, real, manager: isWithin(layout.prefix, f.real) ? "ours" : managerOf(real, ourPrefix) });
  }
  return [...byReal.values()].sort((a, b) => a.position - b.position);
}

export function migrateSentence(): string {
  return "gentle-shell-setup migrate moves it into this install and removes the global package";
}

export async function onPathChecks(layout: Layout, env: Env): Promise<Check[]> {
  const show = (p: string) => tildify(p, layout.home);
  const found = await commandsOnPath(layout, env);
  const ours = found.find((f) => f.manager === "ours" && f.name === "gentle-shell");
  const out: Check[] = [];
  for (const f of found) {
    const via = f.via.length > 1 ? `, reached through ${f.via.length} PATH entries (${f.via.map(show).join(", ")})` : "";
    const id = `path.command:${show(f.real)}`;
    if (f.manager === "ours") {
      out.push({ group: "path", id, status: "ok", line: `${f.name} on PATH: ${show(f.real)} (ours)${via}` });
      continue;
    }
    const shadows = f.name === "gentle-shell" && (!ours || f.position < ours.position);
    const by = f.manager === "unknown" ? "installed by something else" : `a global ${f.manager} install`;
    const line = `${f.name} on PATH: ${show(f.real)} (${by})${via}${shadows ? (ours ? ", found before ours" : "") : ""}`;
    const sentence =
      f.manager === "unknown"
        ? `remove ${show(f.via[0]!)}, or put ${show(layout.bin)} before ${show(f.via[0]!.slice(0, -f.name.length - 1) || "/")} in PATH`
        : migrateSentence();
    out.push({ group: "path", id, status: shadows ? "broken" : "warn", line, repair: { kind: "command", sentence } });
  }
  return out;
}
