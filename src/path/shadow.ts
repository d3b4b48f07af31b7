/**
 * shadowingCommand (spec: "Migration from a global install", the table):
 * which gentle-shell a new terminal runs once the planned PATH change is
 * applied, and, when an old one still wins, one sentence on how to change
 * that. Pure; each shell's position comes from its rules in `shells.ts`.
 */
import { join } from "../core/native-path";
import type { Env } from "../core/environment";
import type { Platform } from "../core/layout";
import { tildify } from "../core/layout";
import { pathEntries, samePathEntry, type PathEntryPlan } from "./entry-plan";
import { COMMAND_NAME, commandFileNames, rulesFor, type ShellName } from "./shells";

export interface ShadowInput {
  /** The PATH of the process deciding (the new terminal starts from it). */
  path: string | undefined;
  platform: Platform;
  home: string;
  env: Env;
  bin: string;
  /** Is there a runnable file at this path? */
  isCommand: (file: string) => boolean;
}

export interface ShadowResult {
  /** Where our bin lands in a new terminal's PATH. */
  position: "first" | "last" | "existing" | "unchanged";
  /** The gentle-shell a new terminal runs, null when none. */
  runs: string | null;
  /** True when `runs` is the bundled one (our bin, or the ~/.local/bin link). */
  ours: boolean;
  /** When another one wins: it, and one sentence on how to change that. */
  shadowedBy?: { dir: string; file: string; message: string };
}

function planShell(plan: PathEntryPlan): ShellName | "registry" | "link" | null {
  switch (plan.kind) {
    case "line":
    case "manual":
      return plan.shell;
    case "registry":
    case "link":
      return plan.kind;
    case "none":
      return plan.existing.kind === "line" ? plan.existing.shell : plan.existing.kind;
    case "impossible":
      return null;
  }
}

/**
 * Which gentle-shell a new terminal runs once `plan` is applied, taking the
 * current PATH and placing our bin per the spec's table: a zsh or bash line
 * first, the fish conf.d line last (config.fish prepends after it), the
 * Windows user Path entry last (after the machine Path), the ~/.local/bin
 * link and an entry already there where they already are.
 */
export function shadowingCommand(plan: PathEntryPlan, input: ShadowInput): ShadowResult {
  const { platform, home, bin } = input;
  const entries = pathEntries(input.path, platform);
  const localBin = join(home, ".local", "bin");
  const kind = planShell(plan);
  const rules = kind === null || kind === "link" ? null : rulesFor(kind);
  const has = (dir: string) => entries.some((e) => samePathEntry(e, dir, platform));

  let dirs: string[];
  let position: ShadowResult["position"];
  let ourDirs: string[] = [bin];
  if (plan.kind === "link" || (plan.kind === "none" && plan.existing.kind === "link")) {
    dirs = entries;
    position = "existing";
    ourDirs = [bin, localBin];
  } else if (plan.kind === "manual" || plan.kind === "impossible") {
    dirs = entries;
    position = "unchanged";
  } else if (plan.kind === "none" && has(bin)) {
    dirs = entries;
    position = "existing";
  } else {
    position = rules?.position ?? "first";
    const rest = entries.filter((e) => !samePathEntry(e, bin, platform));
    dirs = position === "first" ? [bin, ...rest] : [...rest, bin];
  }

  const names = commandFileNames(COMMAND_NAME, platform, input.env);
  for (const dir of dirs) {
    if (ourDirs.some((d) => samePathEntry(d, dir, platform))) {
      // Our bin holds the launcher; ~/.local/bin holds our link (planned or there).
      return { position, runs: join(dir, platform === "win32" ? COMMAND_NAME + ".cmd" : COMMAND_NAME), ours: true };
    }
    for (const name of names) {
      const file = join(dir, name);
      if (input.isCommand(file)) {
        const shown = tildify(file, home);
        const why =
          rules?.whenShadowed ??
          `its folder ${tildify(dir, home)} comes first on PATH; remove that old gentle-shell (for example uninstall the global gentle-pi), or put ${tildify(bin, home)} ahead of it`;
        return {
          position,
          runs: file,
          ours: false,
          shadowedBy: { dir, file, message: `A new terminal would still run ${shown} instead of the bundled gentle-shell: ${why}.` },
        };
      }
    }
  }
  return { position, runs: null, ours: false };
}
