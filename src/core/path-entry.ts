/**
 * The PATH entry: the one change the installer makes outside the prefix
 * (spec: "PATH", and the shadowingCommand table in "Migration from a global
 * install"). Everything here is a pure decision over facts that
 * `src/install/path/probe.ts` gathers (lstat, contents, the Windows user Path).
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
 * - Windows: no file at all; the user Path in HKCU\Environment.
 *
 * Before any of those: when `~/.local/bin` is already on PATH, a symlink
 * there needs no file edit at all (spec: "Symlink").
 *
 * Files that are links (stow, chezmoi, home-manager), read-only, not regular
 * files, or reached through a linked folder belong to some tool or to a
 * decision of the user: we never write them, we hand the user the exact line
 * (spec: "Manual"). And when the line is already there, even through a link,
 * there is nothing to do and nothing to ask.
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
 * Windows: the bin folder (with backslashes) as one more entry of the user
 *   Path, appended; the value's type (REG_EXPAND_SZ) is kept, other entries'
 *   `%VAR%` are never expanded, and entries are compared case-insensitively
 *   without a trailing backslash, as Windows resolves them.
 * A bin path holding a newline (or the list separator `:`, `;` on Windows)
 * cannot be put on PATH at all: that plan is `impossible`.
 *
 * Writable
 * --------
 * "A regular file this user can write" is judged by the mode bits against
 * the file's owner and group, for root too: root can write anything, but a
 * root user who made `.zshrc` 0444 asked for it to be left alone. The io side
 * also requires access(W_OK), which sees read-only mounts and ACLs.
 *
 * The installer's entry point is `bundledPathStep` in `src/install/path/step.ts`:
 *   bundledPathStep(layout, { env, platform?, noModifyPath?, fs?, registry?, user? })
 *     -> Promise<PathStepOutcome>
 * whose `nextStep` is one sentence saying what the user must do to get
 * `gentle-shell` in the current terminal.
 */
import { basename, join } from "pathe";
import type { Platform } from "./layout";
import { tildify } from "./layout";

export const PATH_MARKER = "# gentle-shell bundled install";
export const USER_PATH_KEY = "HKCU\\Environment";
export const USER_PATH_NAME = "Path";
export const COMMAND_NAME = "gentle-shell";

export type ShellName = "zsh" | "bash" | "fish" | "sh";
export type Env = Record<string, string | undefined>;

// ---------------------------------------------------------------------------
// Facts (gathered by src/install/path/probe.ts, or written by hand in tests)

/** What lstat and a read show about one path. */
export interface FileFacts {
  path: string;
  /** lstat of the path itself: nothing, a regular file, a symlink, anything else. */
  node: "absent" | "file" | "link" | "other";
  /**
   * The first folder strictly below home on the way to the file that is a
   * symlink (or not a folder); null when every one is a real folder.
   */
  linkedFolder: string | null;
  /**
   * node "file": this user may write the file (mode bits and access).
   * node "absent": the deepest existing folder above it is writable, so the
   * missing folders and the file can be created.
   */
  writable: boolean;
  /** The contents, read through links; null when absent or unreadable. */
  content: string | null;
  /** For a link: what it points at (readlink). */
  linkTarget?: string;
}

export interface PathFacts {
  platform: Platform;
  home: string;
  env: Env;
  /** <prefix>/bin */
  bin: string;
  /** <prefix>/bin/gentle-shell(.cmd) */
  launcher: string;
  /** Facts for every path in profileFiles() and for ~/.local/bin/gentle-shell. */
  files: Record<string, FileFacts>;
  /** Windows only: the raw user Path, null when the value does not exist. */
  userPath?: UserPathValue | null;
}

export interface UserPathValue {
  value: string;
  type: "REG_SZ" | "REG_EXPAND_SZ";
}

// ---------------------------------------------------------------------------
// One small type per shell, answering the same questions.

export interface ShellContext {
  home: string;
  env: Env;
  platform: Platform;
}

interface ShellRules {
  name: ShellName;
  /** The startup files of this shell we may write, in the order the shell looks for them. */
  files(ctx: ShellContext): string[];
  /** Which of them gets the line, given which exist. */
  choose(files: string[], exists: (path: string) => boolean): string;
  /** The marked line putting `bin` first on this shell's PATH. */
  line(bin: string): string;
  /** The command that loads `file` into the current terminal. */
  reload(fileArg: string): string;
  /** Where a terminal's PATH gets our bin (the shadowingCommand table). */
  position: "first" | "last";
  /** Why a `last` position can lose, and what to do about it. */
  whenShadowed?: string;
}

const first = (files: string[]) => files[0]!;

/** spec PATH: "$ZDOTDIR/.zshrc (or ~/.zshrc) for zsh." */
const zsh: ShellRules = {
  name: "zsh",
  files: ({ home, env }) => [join(env.ZDOTDIR || home, ".zshrc")],
  choose: first,
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
  line: posixLine,
  reload: (f) => `. ${f}`,
  position: "first",
};

/** spec PATH: "Our own conf.d/gentle-shell.fish for fish", under XDG_CONFIG_HOME or ~/.config. */
const fish: ShellRules = {
  name: "fish",
  files: ({ home, env }) => [join(env.XDG_CONFIG_HOME || join(home, ".config"), "fish", "conf.d", "gentle-shell.fish")],
  choose: first,
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
  line: posixLine,
  reload: (f) => `. ${f}`,
  // Not in the table; like bash, appended last to the one file the shell reads.
  position: "first",
};

const SHELLS: Record<ShellName, ShellRules> = { zsh, bash, fish, sh };

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
        out.push({ shell: rules.name, path, style: rules.name === "fish" ? "fish" : "posix" });
      }
    }
  }
  return out;
}

/** ~/.local/bin/gentle-shell */
export function localBinLink(home: string): string {
  return join(home, ".local", "bin", COMMAND_NAME);
}

// ---------------------------------------------------------------------------
// Lines

/** The line for sh, bash and zsh. */
export function posixLine(bin: string): string {
  return `export PATH="${bin.replace(/[$`"\\]/g, "\\$&")}:$PATH" ${PATH_MARKER}`;
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
// Windows user Path (pure string work; the adapter does the registry)

/** How Windows compares Path entries: case-insensitive, `/` as `\`, no trailing backslash. */
export function userPathKey(entry: string): string {
  return entry.replace(/\//g, "\\").replace(/\\+$/, "").toLowerCase();
}

/** The entry we add for `bin`: the same folder with backslashes. */
export function userPathEntry(bin: string): string {
  return bin.replace(/\//g, "\\");
}

export function userPathHolds(value: string, entry: string): boolean {
  const key = userPathKey(entry);
  return value.split(";").some((e) => e !== "" && userPathKey(e) === key);
}

/** Appends one entry, raw: nothing else in the value changes (`%VAR%` stays as written). */
export function userPathAppend(value: string, entry: string): string {
  if (value === "") return entry;
  return value.endsWith(";") ? value + entry : `${value};${entry}`;
}

/**
 * Drops every entry equal to `entry`; the other entries are kept as written.
 * A value that ended in `;` before our append loses that `;` (the receipt's
 * fields do not record it; Windows ignores it either way).
 */
export function userPathRemove(value: string, entry: string): string {
  const key = userPathKey(entry);
  return value
    .split(";")
    .filter((e) => e === "" || userPathKey(e) !== key)
    .join(";");
}

// ---------------------------------------------------------------------------
// The plan

export type ManualReason = "link" | "read-only" | "not-a-file" | "linked-folder" | "folder-not-writable" | "unreadable";

export type PathEntryPlan =
  /** Create ~/.local/bin/gentle-shell -> launcher. */
  | { kind: "link"; path: string; target: string }
  /** Append `line` to `file` (created when `create`). */
  | { kind: "line"; shell: ShellName; file: string; line: string; create: boolean }
  /** Append `entry` to the HKCU user Path. */
  | { kind: "registry"; key: string; name: string; entry: string }
  /** Nothing to write; the user adds `line` to `file` by hand. */
  | { kind: "manual"; shell: ShellName; file: string; line: string; reason: ManualReason }
  /** Already there: the link, the line (even through a link) or the Path entry. */
  | { kind: "none"; existing: Existing }
  /** The bin path cannot be put on PATH (a newline, or the list separator, in it). */
  | { kind: "impossible"; reason: string };

export type Existing =
  | { kind: "link"; path: string; target: string }
  | { kind: "line"; shell: ShellName; file: string; line: string }
  | { kind: "registry"; key: string; name: string; entry: string };

/** The entries of a PATH value, without empty ones and trailing slashes. */
export function pathEntries(value: string | undefined, platform: Platform): string[] {
  const sep = platform === "win32" ? ";" : ":";
  return (value ?? "")
    .split(sep)
    .filter((e) => e !== "")
    .map((e) => (e.length > 1 ? e.replace(platform === "win32" ? /[\\/]+$/ : /\/+$/, "") : e));
}

function samePathEntry(a: string, b: string, platform: Platform): boolean {
  if (platform === "win32") return userPathKey(a) === userPathKey(b);
  return a.replace(/\/+$/, "") === b.replace(/\/+$/, "");
}

function onPath(dir: string, env: Env, platform: Platform): boolean {
  return pathEntries(env.PATH, platform).some((e) => samePathEntry(e, dir, platform));
}

function unplaceable(bin: string, platform: Platform): string | null {
  if (/[\r\n]/.test(bin)) return "the install folder's name holds a line break";
  if (platform === "win32" ? bin.includes(";") : bin.includes(":")) {
    return `the install folder's name holds "${platform === "win32" ? ";" : ":"}", which separates PATH entries`;
  }
  return null;
}

function factsFor(facts: PathFacts, path: string): FileFacts {
  return facts.files[path] ?? { path, node: "absent", linkedFolder: null, writable: false, content: null };
}

/**
 * The profile file and line for the user's shell, ignoring the ~/.local/bin
 * link: what a user who opted out (--no-modify-path) adds by hand.
 */
export function profileTarget(facts: PathFacts): { shell: ShellName; file: string; line: string } {
  const rules = SHELLS[shellFor(facts.env)];
  const files = rules.files(facts);
  const file = rules.choose(files, (p) => factsFor(facts, p).node !== "absent");
  return { shell: rules.name, file, line: rules.line(facts.bin) };
}

/** spec PATH: the single PATH change, not applied. */
export function pathEntryPlan(facts: PathFacts): PathEntryPlan {
  const { platform, bin, home, env } = facts;
  const impossible = unplaceable(bin, platform);

  if (platform === "win32") {
    const entry = userPathEntry(bin);
    const registry = { key: USER_PATH_KEY, name: USER_PATH_NAME, entry };
    if (userPathHolds(facts.userPath?.value ?? "", entry)) return { kind: "none", existing: { kind: "registry", ...registry } };
    if (impossible) return { kind: "impossible", reason: impossible };
    return { kind: "registry", ...registry };
  }

  // Symlink: ~/.local/bin on PATH, and the name free (or already ours).
  const localBin = join(home, ".local", "bin");
  if (onPath(localBin, env, platform)) {
    const link = factsFor(facts, localBinLink(home));
    if (link.node === "link" && link.linkTarget === facts.launcher) {
      return { kind: "none", existing: { kind: "link", path: link.path, target: facts.launcher } };
    }
    if (link.node === "absent" && link.linkedFolder === null && link.writable) {
      return { kind: "link", path: link.path, target: facts.launcher };
    }
  }

  const target = profileTarget(facts);
  const file = factsFor(facts, target.file);
  if (file.content !== null && holdsLine(file.content, target.line)) {
    return { kind: "none", existing: { kind: "line", ...target } };
  }
  if (impossible) return { kind: "impossible", reason: impossible };

  const manual = (reason: ManualReason): PathEntryPlan => ({ kind: "manual", ...target, reason });
  if (file.linkedFolder !== null) return manual("linked-folder");
  switch (file.node) {
    case "link":
      return manual("link");
    case "other":
      return manual("not-a-file");
    case "absent":
      return file.writable ? { kind: "line", ...target, create: true } : manual("folder-not-writable");
    case "file":
      if (!file.writable) return manual("read-only");
      if (file.content === null) return manual("unreadable");
      return { kind: "line", ...target, create: false };
  }
}

// ---------------------------------------------------------------------------
// Writable, judged by mode bits (see "Writable" above)

export interface ModeFacts {
  mode: number;
  uid: number;
  gid: number;
}
export interface UserIds {
  uid: number;
  gids: readonly number[];
}

/** May this user write a file with these mode bits? Root gets no exception. */
export function modeAllowsWrite(st: ModeFacts, user: UserIds): boolean {
  if (st.uid === user.uid) return (st.mode & 0o200) !== 0;
  if (user.gids.includes(st.gid)) return (st.mode & 0o020) !== 0;
  return (st.mode & 0o002) !== 0;
}

// ---------------------------------------------------------------------------
// Receipts (spec PATH: "Persisted receipt", "Reading it back")

export type PathReceipt =
  | { schema: 1; kind: "link"; applied: boolean; path: string; target: string }
  | { schema: 1; kind: "profile"; applied: boolean; path: string; line: string; create: boolean; separator: "" | "\n" }
  | { schema: 1; kind: "registry"; applied: boolean; key: string; name: string; entry: string };

/** The JSON text of path-entry.json: schema, kind and that kind's fields (only applied receipts are written). */
export function receiptJson(receipt: PathReceipt): string {
  const { applied: _applied, ...fields } = receipt;
  return JSON.stringify(fields, null, 2) + "\n";
}

export interface ReceiptContext {
  home: string;
  env: Env;
  platform: Platform;
  bin: string;
  launcher: string;
}

export type ReceiptCheck =
  | { status: "valid"; receipt: PathReceipt }
  | { status: "invalid"; reason: string /** What the user removes by hand, when the receipt names something. */; manual: string | null };

const KIND_FIELDS: Record<string, string[]> = {
  link: ["schema", "kind", "path", "target"],
  profile: ["schema", "kind", "path", "line", "create", "separator"],
  registry: ["schema", "kind", "key", "name", "entry"],
};

/**
 * Accepts only what this prefix writes (spec PATH, "Reading it back"):
 * our link to our launcher, our exact line for our bin in a file
 * pathEntryPlan can choose for this user (the fish line only in the fish
 * file), or our bin in HKCU\Environment Path.
 */
export function checkReceipt(text: string, ctx: ReceiptContext): ReceiptCheck {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return { status: "invalid", reason: "path-entry.json is not JSON", manual: null };
  }
  if (typeof data !== "object" || data === null || Array.isArray(data)) {
    return { status: "invalid", reason: "path-entry.json is not an object", manual: null };
  }
  const r = data as Record<string, unknown>;
  const fields = typeof r.kind === "string" ? KIND_FIELDS[r.kind] : undefined;
  if (r.schema !== 1 || !fields) return { status: "invalid", reason: "path-entry.json has an unknown schema or kind", manual: null };
  const keys = Object.keys(r);
  if (keys.length !== fields.length || !fields.every((f) => keys.includes(f))) {
    return { status: "invalid", reason: `path-entry.json's ${r.kind} fields are not ${fields.join(", ")}`, manual: null };
  }
  const str = (v: unknown): v is string => typeof v === "string";
  const show = (p: string) => tildify(p, ctx.home);

  if (r.kind === "link") {
    if (!str(r.path) || !str(r.target)) return { status: "invalid", reason: "path-entry.json's link fields are not text", manual: null };
    const manual = `the link ${show(r.path)}`;
    if (ctx.platform === "win32") return { status: "invalid", reason: "a link receipt on Windows", manual };
    if (r.path !== localBinLink(ctx.home)) return { status: "invalid", reason: `the installer never links ${show(r.path)}`, manual };
    if (r.target !== ctx.launcher) return { status: "invalid", reason: `the link's target is not this prefix's launcher`, manual };
    return { status: "valid", receipt: { schema: 1, kind: "link", applied: true, path: r.path, target: r.target } };
  }

  if (r.kind === "profile") {
    if (!str(r.path) || !str(r.line) || typeof r.create !== "boolean" || (r.separator !== "" && r.separator !== "\n")) {
      return { status: "invalid", reason: "path-entry.json's profile fields are malformed", manual: null };
    }
    const manual = str(r.line) && r.line.length < 4096 ? `the line ${JSON.stringify(r.line)} in ${show(r.path)}` : `the marked line in ${show(r.path)}`;
    const file = profileFiles(ctx.home, ctx.env, ctx.platform).find((f) => f.path === r.path);
    if (!file) return { status: "invalid", reason: `the installer never writes ${show(r.path)} for this user`, manual };
    if (r.line !== markedLine(file.style, ctx.bin)) {
      return { status: "invalid", reason: `the line is not this prefix's ${file.style === "fish" ? "fish " : ""}line for ${show(r.path)}`, manual };
    }
    return {
      status: "valid",
      receipt: { schema: 1, kind: "profile", applied: true, path: r.path, line: r.line, create: r.create, separator: r.separator },
    };
  }

  // registry
  if (!str(r.key) || !str(r.name) || !str(r.entry)) return { status: "invalid", reason: "path-entry.json's registry fields are not text", manual: null };
  const manual = `the entry ${r.entry} in your user Path`;
  if (ctx.platform !== "win32") return { status: "invalid", reason: "a Windows Path receipt outside Windows", manual };
  if (r.key !== USER_PATH_KEY || r.name !== USER_PATH_NAME) return { status: "invalid", reason: `the installer never writes ${r.key}\\${r.name}`, manual };
  if (userPathKey(r.entry) !== userPathKey(ctx.bin)) return { status: "invalid", reason: "the entry is not this prefix's bin folder", manual };
  return { status: "valid", receipt: { schema: 1, kind: "registry", applied: true, key: r.key, name: r.name, entry: r.entry } };
}

// ---------------------------------------------------------------------------
// shadowingCommand (spec "Migration from a global install", the table)

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
    position = kind === "fish" || kind === "registry" ? "last" : "first";
    const rest = entries.filter((e) => !samePathEntry(e, bin, platform));
    dirs = position === "first" ? [bin, ...rest] : [...rest, bin];
  }

  const names =
    platform === "win32"
      ? (input.env.PATHEXT ?? ".COM;.EXE;.BAT;.CMD")
          .split(";")
          .filter(Boolean)
          .map((ext) => COMMAND_NAME + ext.toLowerCase())
      : [COMMAND_NAME];
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
          kind === "fish"
            ? fish.whenShadowed!
            : kind === "registry"
              ? "Windows reads the machine Path before the user Path; remove that old gentle-shell, or move the bundled bin folder ahead of its folder in your Path"
              : `its folder ${tildify(dir, home)} comes first on PATH; remove that old gentle-shell (for example uninstall the global gentle-pi), or put ${tildify(bin, home)} ahead of it`;
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

// ---------------------------------------------------------------------------
// Words for the user

/** A path as a shell argument: `~/...` when that needs no quoting, else single-quoted. */
export function shellArg(path: string, home: string): string {
  const shown = tildify(path, home);
  if (/^[A-Za-z0-9_./~+,@%=-]+$/.test(shown)) return shown;
  return `'${path.replace(/'/g, `'\\''`)}'`;
}

/** The command that loads `file` (a file of `shell`) into the current terminal. */
export function reloadCommand(shell: ShellName, file: string, home: string): string {
  return SHELLS[shell].reload(shellArg(file, home));
}

/** One sentence: add this line by hand. */
export function addLineSentence(file: string, line: string, home: string): string {
  return `Add this line to ${tildify(file, home)}, then open a new terminal: ${line}`;
}
