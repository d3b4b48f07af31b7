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
 * - nu reads `env.nu` in its config folder (`$XDG_CONFIG_HOME/nushell`
 *   for an absolute XDG_CONFIG_HOME, else `~/Library/Application
 *   Support/nushell` on macOS and `~/.config/nushell` elsewhere: nu's own
 *   `$nu.default-config-dir`) in every REPL and in `nu -l`. Not the autoload
 *   folder, which is our own file's kind of place but which `nu -l -c` does
 *   not read, so doctor could not ask a new nu about it.
 * - PowerShell on macOS and Linux reads `$PROFILE.CurrentUserAllHosts`,
 *   `$XDG_CONFIG_HOME/powershell/profile.ps1` or
 *   `~/.config/powershell/profile.ps1`, on every start that does not say
 *   -NoProfile. Windows' PowerShell reads the user Path like everything else.
 * - Any other shell: `~/.profile`, which login shells of the sh family read.
 * - Windows: no file at all; the user Path in HKCU\Environment (the entry is
 *   described in `user-path.ts`).
 *
 * Each shell's line, quoting and lookup are in ./shell-lines.ts; adding a
 * shell is one row below and, when its syntax is new, its functions there.
 */
import { basename, join } from "../core/native-path";
import { envValue, type Env } from "../core/environment";
import type { Platform } from "../core/layout";
import type { CompletionShell } from "../core/completion/shells";
import { userPathEntry } from "./user-path";
import { xdgFolder } from "../core/xdg";
import {
  fishLine,
  inDoubleQuotes,
  fishQuote,
  nuLine,
  nuLookup,
  nuQuote,
  posixLine,
  posixLookup,
  posixQuote,
  pwshLine,
  pwshHomeQuote,
  pwshLookup,
  pwshQuote,
} from "./shell-lines";

export { holdsLine, inDoubleQuotes, markedLines, PATH_MARKER, posixLine, fishLine } from "./shell-lines";
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

export type ShellName = "zsh" | "bash" | "fish" | "nu" | "pwsh" | "sh";

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

/** Where a shell's completion scripts go, and what the user is told to add when the shell does not read that place by itself. */
export interface CompletionRules {
  /** The script format (`gentle-shell completions <format>`). */
  format: CompletionShell;
  /** The file for `command`'s script. */
  file(ctx: ShellContext, prefix: string, command: string): string;
  /** The sentence naming the line to add, given the folder as shown and the startup file as shown; absent when none is needed. */
  hint?(folder: string, startupFile: string): string;
}

export interface ShellRules extends PathRules {
  name: ShellName;
  /** The program a terminal starts, for doctor's new-shell check; null when which program reads the files is unknown. */
  program: string | null;
  /** The startup files of this shell we may write, in the order the shell looks for them. */
  files(ctx: ShellContext): string[];
  /** Which of them gets the line, given which exist. */
  choose(files: string[], exists: (path: string) => boolean): string;
  /** The marked line putting `bin` first on this shell's PATH. */
  line(bin: string): string;
  /** A path as one word of this shell's command line. */
  quote(path: string): string;
  /** The command that loads `file` into the current terminal. */
  reload(fileArg: string): string;
  /** The flags (before `-c`) that start it as a new terminal does. */
  terminal(platform: Platform): string[];
  /** The command printing `begin`, what `name` is to this shell (a file's path, another kind's name, or nothing) and `end`. */
  lookup(name: string, begin: string, end: string): string;
  /** Its completion scripts; null when none are written for it. */
  completion: CompletionRules | null;
  /** How long a new one may take to answer doctor, when longer than the few seconds any other shell gets. */
  startsWithinMs?: number;
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
// One rules object per shell, and Windows' user Path.

const first = (files: string[]) => files[0]!;
const configHome = ({ home, env }: ShellContext) => xdgFolder(env, "XDG_CONFIG_HOME", join(home, ".config"));
const posix = { line: posixLine, quote: posixQuote, reload: (f: string) => `. ${f}`, lookup: posixLookup };

/** spec PATH: "$ZDOTDIR/.zshrc (or ~/.zshrc) for zsh." */
const zsh: ShellRules = {
  name: "zsh",
  program: "zsh",
  files: ({ home, env }) => [join(env.ZDOTDIR || home, ".zshrc")],
  choose: first,
  ...posix,
  terminal: () => ["-l", "-i"],
  // zsh has no per-user folder on its fpath: the scripts go into the prefix, and the user is told the one fpath line.
  completion: {
    format: "zsh",
    file: (_ctx, prefix, command) => join(prefix, "completions", "zsh", `_${command}`),
    hint: (folder, zshrc) => `for them add ${zshFpathLine(folder)} before compinit in ${zshrc}`,
  },
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
  program: "bash",
  files: ({ home, platform }) =>
    platform === "darwin" ? [join(home, ".bash_profile"), join(home, ".bash_login"), join(home, ".profile")] : [join(home, ".bashrc")],
  // ~/.bash_profile is created only when none exists: it would hide ~/.profile.
  choose: (files, exists) => files.find(exists) ?? files[0]!,
  ...posix,
  // Other systems' terminals start the interactive non-login bash, the one that reads ~/.bashrc.
  terminal: (platform) => (platform === "darwin" ? ["-l", "-i"] : ["-i"]),
  // bash-completion's per-user folder, loaded on demand at the command's first Tab.
  completion: {
    format: "bash",
    file: (ctx, _prefix, command) =>
      join(
        xdgFolder(ctx.env, "BASH_COMPLETION_USER_DIR", join(xdgFolder(ctx.env, "XDG_DATA_HOME", join(ctx.home, ".local", "share")), "bash-completion")),
        "completions",
        command,
      ),
  },
  position: "first",
};

/** spec PATH: "Our own conf.d/gentle-shell.fish for fish", under XDG_CONFIG_HOME (an absolute one) or ~/.config. */
const fish: ShellRules = {
  name: "fish",
  program: "fish",
  files: (ctx) => [join(configHome(ctx), "fish", "conf.d", "gentle-shell.fish")],
  choose: first,
  line: fishLine,
  quote: fishQuote,
  reload: (f) => `source ${f}`,
  terminal: () => ["-l", "-i"],
  // fish's `command -v` names external commands only: a function of that name is not seen.
  lookup: posixLookup,
  completion: { format: "fish", file: (ctx, _prefix, command) => join(configHome(ctx), "fish", "completions", `${command}.fish`) },
  // Table: conf.d is read before config.fish, so what config.fish prepends comes first.
  position: "last",
  whenShadowed:
    "fish reads conf.d before config.fish, so folders config.fish adds come first; remove that old gentle-shell or add the line to the end of config.fish instead",
};

/** nu's `$nu.default-config-dir`: an absolute XDG_CONFIG_HOME's nushell, else the platform's config folder's. */
function nuConfigDir(ctx: ShellContext): string {
  const fallback = ctx.platform === "darwin" ? join(ctx.home, "Library", "Application Support") : join(ctx.home, ".config");
  return join(xdgFolder(ctx.env, "XDG_CONFIG_HOME", fallback), "nushell");
}

/** nu: a line in env.nu; the completions (`extern` definitions) in its autoload folder, which every REPL reads. */
const nu: ShellRules = {
  name: "nu",
  program: "nu",
  files: (ctx) => [join(nuConfigDir(ctx), "env.nu")],
  choose: first,
  line: nuLine,
  quote: nuQuote,
  reload: (f) => `source ${f}`,
  // `nu -c` alone reads no startup file; with -l it reads env.nu and config.nu, as a terminal's nu does.
  terminal: () => ["-l"],
  lookup: nuLookup,
  completion: { format: "nu", file: (ctx, _prefix, command) => join(nuConfigDir(ctx), "autoload", `${command}-completions.nu`) },
  // env.nu runs before config.nu: what config.nu prepends comes first.
  position: "last",
  whenShadowed: "nu reads env.nu before config.nu, so folders config.nu adds come first; remove that old gentle-shell or move the line to the end of config.nu",
};

/**
 * PowerShell on macOS and Linux: `$PROFILE.CurrentUserAllHosts`; the completer is dot-sourced from it by the user.
 * PowerShell takes any non-empty XDG_CONFIG_HOME, a relative one too, where the XDG rule (and this row) ignores a
 * relative one: for such a value the two disagree, and doctor's path.entry names the file this row chose.
 */
const pwsh: ShellRules = {
  name: "pwsh",
  program: "pwsh",
  files: (ctx) => [join(configHome(ctx), "powershell", "profile.ps1")],
  choose: first,
  line: pwshLine,
  quote: pwshQuote,
  reload: (f) => `. ${f}`,
  // -Login must come first; -NonInteractive keeps a profile that prompts from waiting.
  terminal: () => ["-Login", "-NoLogo", "-NonInteractive"],
  // -Login starts .NET, then a login sh, then .NET again: seconds on a cold machine before the profile even runs.
  startsWithinMs: 15_000,
  lookup: pwshLookup,
  completion: {
    format: "powershell",
    file: (_ctx, prefix, command) => join(prefix, "completions", "powershell", `${command}.ps1`),
    hint: (folder, profile) =>
      `for them add . ${pwshHomeQuote(`${folder}/gentle-shell.ps1`)} and . ${pwshHomeQuote(`${folder}/gentle-shell-setup.ps1`)} to ${profile}`,
  },
  // The profile runs after the PATH PowerShell was started with; the line prepends.
  position: "first",
};

/** spec PATH: "~/.profile otherwise." */
const sh: ShellRules = {
  name: "sh",
  program: null,
  files: ({ home }) => [join(home, ".profile")],
  choose: first,
  ...posix,
  terminal: () => ["-l"],
  completion: null,
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

/** The shell table, in the order profileFiles lists their files; sh, the fallback, last. */
export const SHELLS: Record<ShellName, ShellRules> = { zsh, bash, fish, nu, pwsh, sh };
const ROWS: ShellRules[] = Object.values(SHELLS);

/** The rules of the shell (or of the Windows user Path) a plan writes for. */
export function rulesFor(kind: ShellName | "registry"): PathRules {
  return kind === "registry" ? windowsUserPath : SHELLS[kind];
}

/** The shell a program's name is (`/usr/bin/zsh`, `pwsh`), or null for one the table does not know. */
export function knownShell(program: string): ShellName | null {
  const name = basename(program);
  return ROWS.find((r) => r.program !== null && r.program === name)?.name ?? null;
}

/** The user's shell, from $SHELL's name; anything unknown is the sh family. */
export function shellFor(env: Env): ShellName {
  return knownShell(env.SHELL ?? "") ?? "sh";
}

/**
 * The line to put before compinit in ~/.zshrc for the zsh folder `folder`
 * (as the user is shown it: `~/...` under the home). A plain `~/` path stays
 * as it is, the form users know; any other is double-quoted, with `$HOME`
 * for the tilde (which does not expand inside quotes), so a home or prefix
 * with a space, a quote or a `$` is still one word on fpath.
 */
export function zshFpathLine(folder: string): string {
  if (/^~\/[A-Za-z0-9._/-]*$/.test(folder)) return `fpath=(${folder} $fpath)`;
  const word = folder.startsWith("~/") ? `"$HOME/${inDoubleQuotes(folder.slice(2))}"` : `"${inDoubleQuotes(folder)}"`;
  return `fpath=(${word} $fpath)`;
}

export interface ProfileFile {
  shell: ShellName;
  path: string;
}

/**
 * Every startup file pathEntryPlan can choose for this user, whatever their
 * shell (spec PATH, "Reading it back"): .zshrc in $ZDOTDIR or home, the macOS
 * bash login files or Linux ~/.bashrc, the fish conf.d file, nu's env.nu,
 * PowerShell's profile, ~/.profile.
 */
export function profileFiles(home: string, env: Env, platform: Platform): ProfileFile[] {
  if (platform === "win32") return [];
  const out: ProfileFile[] = [];
  for (const rules of ROWS) {
    for (const path of rules.files({ home, env, platform })) {
      if (!out.some((f) => f.path === path)) out.push({ shell: rules.name, path });
    }
  }
  return out;
}

/** ~/.local/bin/gentle-shell */
export function localBinLink(home: string): string {
  return join(home, ".local", "bin", COMMAND_NAME);
}
