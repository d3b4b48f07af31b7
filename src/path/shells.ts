/**
 * The PATH entry's rules per shell (spec: "PATH", and the shadowingCommand
 * table in "Migration from a global install"): one rules object per shell,
 * and Windows' user Path as one more, each answering the same questions:
 * its files, its line, and where a new terminal's PATH gets our bin. Pure.
 *
 * Why the rules are what they are
 * -------------------------------
 * A terminal does not read "the profile". Each shell reads its own startup
 * files, and which ones depends on how the terminal starts it:
 *
 * - Linux terminals start bash as an interactive non-login shell, which reads
 *   only `~/.bashrc`. Distributions' `~/.profile` sources `~/.bashrc` for login
 *   shells, so `~/.bashrc` covers both.
 * - macOS terminals start bash as a login shell, which reads exactly one of
 *   `~/.bash_profile`, `~/.bash_login`, `~/.profile`: the first that exists
 *   (INVOCATION in bash(1)). We append to that one. We create
 *   `~/.bash_profile` only when none exists, because creating it would hide a
 *   `~/.profile` the user relies on.
 * - zsh reads `$ZDOTDIR/.zshrc` (or `~/.zshrc`) for every interactive shell,
 *   login or not, after `.zprofile` and macOS's path_helper.
 * - fish reads every `conf.d/*.fish` under its config folder
 *   (`$XDG_CONFIG_HOME/fish`, else `~/.config/fish`) before `config.fish`. A
 *   file of our own there is ours alone: adding it edits no user file, and
 *   removing it is deleting it.
 * - Any other shell: `~/.profile`, which login shells of the sh family read.
 * - Windows: no file at all; the user Path in HKCU\Environment (the entry is
 *   described in `user-path.ts`).
 *
 * The lines
 * ---------
 * sh, bash, zsh:  export PATH="<bin>:$PATH" # gentle-shell bundled install
 *   Double quotes with `\` before `$`, backquote, `"` and `\` - the four
 *   characters POSIX double quotes give a meaning to - so spaces, quotes,
 *   `$` and any unicode in the path stay literal in every sh-family shell.
 *   History expansion (`!`) does not happen in sourced files.
 * fish:  set -gx PATH '<bin>' $PATH # gentle-shell bundled install
 *   Not `fish_add_path`: by default it stores the folder in the universal
 *   variable fish_user_paths (the fish_variables file), a second change
 *   outside our file that removing the file would not undo, and it exists
 *   only since fish 3.2. `set -gx` works in every fish, changes only this
 *   session's PATH, and puts our bin first like the sh line does. Inside fish
 *   single quotes only `\` and `'` need a backslash.
 */
import { basename, join } from "../core/native-path";
import { envValue, type Env } from "../core/environment";
import type { Platform } from "../core/layout";
import { userPathEntry } from "./user-path";
import { xdgFolder } from "../core/xdg";

export const PATH_MARKER = "# gentle-shell bundled install";
export const USER_PATH_KEY = "HKCU\\Environment";
export const USER_PATH_NAME = "Path";
export const COMMAND_NAME = "gentle-shell";

/** The file names a command has on PATH on this platform (Windows: one per PATHEXT entry, lower case). */
export function commandFileNames(name: string, platform: Platform, env: Env): string[] {
  if (platform !== "win32") return [name];
  return (envValue(env, "PATHEXT", "win32") ?? ".COM;.EXE;.BAT;.CMD")
    .split(";")
    .filter(Boolean)
    .map((ext) => name + ext.toLowerCase());
}

export type ShellName = "zsh" | "bash" | "fish" | "sh";

export interface ShellContext {
  home: string;
  env: Env;
  platform: Platform;
}

/** What every rules object answers for the shadowingCommand table. */
export interface PathRules {
  /** Where a terminal's PATH gets our bin (the shadowingCommand table). */
  position: "first" | "last";
  /** Why a `last` position can lose, and what to do about it. */
  whenShadowed?: string;
}

export interface ShellRules extends PathRules {
  name: ShellName;
  /** The startup files of this shell we may write, in the order the shell looks for them. */
  files(ctx: ShellContext): string[];
  /** Which of them gets the line, given which exist. */
  choose(files: string[], exists: (path: string) => boolean): string;
  /** The line syntax its files take. */
  style: "posix" | "fish";
  /** The marked line putting `bin` first on this shell's PATH. */
  line(bin: string): string;
  /** The command that loads `file` into the current terminal. */
  reload(fileArg: string): string;
}

/** Windows: no startup file; one entry of the HKCU user Path. */
export interface UserPathRules extends PathRules {
  name: "registry";
  /** Where the entry goes: the registry key and its value's name. */
  key: string;
  value: string;
  /** The entry putting `bin` on the user Path. */
  line(bin: string): string;
}

// ---------------------------------------------------------------------------
// Lines

/** `text` for inside POSIX double quotes: `\` before the four characters they give a meaning to ($, backquote, ", \). */
export function inDoubleQuotes(text: string): string {
  return text.replace(/[$`"\\]/g, "\\$&");
}

/** The line for sh, bash and zsh. */
export function posixLine(bin: string): string {
  return `export PATH="${inDoubleQuotes(bin)}:$PATH" ${PATH_MARKER}`;
}

/** The line for fish. */
export function fishLine(bin: string): string {
  return `set -gx PATH '${bin.replace(/[\\']/g, "\\$&")}' $PATH ${PATH_MARKER}`;
}

export function markedLine(style: "posix" | "fish", bin: string): string {
  return style === "fish" ? fishLine(bin) : posixLine(bin);
}

/** True when `content` holds `line` as a whole line (a CR before the newline is tolerated). */
export function holdsLine(content: string, line: string): boolean {
  return content.split("\n").some((l) => l === line || l === line + "\r");
}

/** Lines carrying our marker (for naming a line the user edited). */
export function markedLines(content: string): string[] {
  return content
    .split("\n")
    .map((l) => l.replace(/\r$/, ""))
    .filter((l) => l.includes(PATH_MARKER));
}

// ---------------------------------------------------------------------------
// One rules object per shell, and Windows' user Path.

const first = (files: string[]) => files[0]!;

/** spec PATH: "$ZDOTDIR/.zshrc (or ~/.zshrc) for zsh." */
const zsh: ShellRules = {
  name: "zsh",
  files: ({ home, env }) => [join(env.ZDOTDIR || home, ".zshrc")],
  choose: first,
  style: "posix",
  line: posixLine,
  reload: (f) => `. ${f}`,
  // Table: zsh reads .zshrc after .zprofile and path_helper; appended after pnpm setup's block.
  position: "first",
};

/**
 * spec PATH: macOS terminals start login shells, which read the first of
 * ~/.bash_profile, ~/.bash_login, ~/.profile (INVOCATION in bash(1)); other
 * systems' terminals read ~/.bashrc.
 */
const bash: ShellRules = {
  name: "bash",
  files: ({ home, platform }) =>
    platform === "darwin" ? [join(home, ".bash_profile"), join(home, ".bash_login"), join(home, ".profile")] : [join(home, ".bashrc")],
  // ~/.bash_profile is created only when none exists: it would hide ~/.profile.
  choose: (files, exists) => files.find(exists) ?? files[0]!,
  style: "posix",
  line: posixLine,
  reload: (f) => `. ${f}`,
  position: "first",
};

/** spec PATH: "Our own conf.d/gentle-shell.fish for fish", under XDG_CONFIG_HOME (an absolute one) or ~/.config. */
const fish: ShellRules = {
  name: "fish",
  files: ({ home, env }) => [join(xdgFolder(env, "XDG_CONFIG_HOME", join(home, ".config")), "fish", "conf.d", "gentle-shell.fish")],
  choose: first,
  style: "fish",
  line: fishLine,
  reload: (f) => `source ${f}`,
  // Table: conf.d is read before config.fish, so what config.fish prepends comes first.
  position: "last",
  whenShadowed:
    "fish reads conf.d before config.fish, so folders config.fish adds come first; remove that old gentle-shell or add the line to the end of config.fish instead",
};

/** spec PATH: "~/.profile otherwise." */
const sh: ShellRules = {
  name: "sh",
  files: ({ home }) => [join(home, ".profile")],
  choose: first,
  style: "posix",
  line: posixLine,
  reload: (f) => `. ${f}`,
  // Not in the table; like bash, appended last to the one file the shell reads.
  position: "first",
};

/** spec PATH: "Registry (Windows). The plan is the bin entry in the HKCU user Path." */
export const windowsUserPath: UserPathRules = {
  name: "registry",
  key: USER_PATH_KEY,
  value: USER_PATH_NAME,
  line: userPathEntry,
  // Table: appended to the user Path, after the machine Path.
  position: "last",
  whenShadowed:
    "Windows reads the machine Path before the user Path; remove that old gentle-shell, or move the bundled bin folder ahead of its folder in your Path",
};

export const SHELLS: Record<ShellName, ShellRules> = { zsh, bash, fish, sh };

/** The rules of the shell (or of the Windows user Path) a plan writes for. */
export function rulesFor(kind: ShellName | "registry"): PathRules {
  return kind === "registry" ? windowsUserPath : SHELLS[kind];
}

/** The user's shell, from $SHELL's name; anything unknown is the sh family. */
export function shellFor(env: Env): ShellName {
  const name = basename(env.SHELL ?? "");
  return name === "zsh" || name === "bash" || name === "fish" ? name : "sh";
}

export interface ProfileFile {
  shell: ShellName;
  path: string;
  /** The line syntax this file takes. */
  style: "posix" | "fish";
}

/**
 * Every startup file pathEntryPlan can choose for this user, whatever their
 * shell (spec PATH, "Reading it back"): .zshrc in $ZDOTDIR or home, the macOS
 * bash login files or Linux ~/.bashrc, the fish conf.d file, ~/.profile.
 */
export function profileFiles(home: string, env: Env, platform: Platform): ProfileFile[] {
  if (platform === "win32") return [];
  const out: ProfileFile[] = [];
  for (const rules of [zsh, bash, fish, sh]) {
    for (const path of rules.files({ home, env, platform })) {
      if (!out.some((f) => f.path === path)) {
        out.push({ shell: rules.name, path, style: rules.style });
      }
    }
  }
  return out;
}

/** ~/.local/bin/gentle-shell */
export function localBinLink(home: string): string {
  return join(home, ".local", "bin", COMMAND_NAME);
}
