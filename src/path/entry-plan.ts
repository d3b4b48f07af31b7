/**
 * The PATH entry's plan: the one change the installer makes outside the
 * prefix (spec: "PATH"). pathEntryPlan is a pure decision over facts that
 * `probe.ts` gathers (lstat, contents, the Windows user Path); the per-shell
 * rules it applies are in `shells.ts`.
 *
 * Before any startup file: when `~/.local/bin` is already on PATH, a symlink
 * there needs no file edit at all (spec: "Symlink").
 *
 * Files that are links (stow, chezmoi, home-manager), read-only, not regular
 * files, or reached through a linked folder belong to some tool or to a
 * decision of the user: we never write them, we hand the user the exact line
 * (spec: "Manual"). And when the line is already there, even through a link,
 * there is nothing to do and nothing to ask.
 *
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
 * The installer's entry point is `pathEntryStep` in `step.ts`:
 *   pathEntryStep(layout, env, { platform?, fs?, registry?, user? }, noModifyPath?)
 *     -> Promise<PathStepOutcome>
 * whose `nextStep` is one sentence saying what the user must do to get
 * `gentle-shell` in the current terminal.
 */
import { join } from "../core/native-path";
import { envValue, type Env } from "../core/environment";
import type { Platform } from "../core/layout";
import { holdsLine, localBinLink, SHELLS, shellFor, windowsUserPath, type ShellName } from "./shells";
import { userPathHolds, userPathKey, type UserPathValue } from "./user-path";

// ---------------------------------------------------------------------------
// Facts (gathered by probe.ts, or written by hand in tests)

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

/** Two PATH entries naming the same folder (Windows: as it compares user Path entries). */
export function samePathEntry(a: string, b: string, platform: Platform): boolean {
  if (platform === "win32") return userPathKey(a) === userPathKey(b);
  return a.replace(/\/+$/, "") === b.replace(/\/+$/, "");
}

function onPath(dir: string, env: Env, platform: Platform): boolean {
  return pathEntries(envValue(env, "PATH", platform), platform).some((e) => samePathEntry(e, dir, platform));
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
    const entry = windowsUserPath.line(bin);
    const registry = { key: windowsUserPath.key, name: windowsUserPath.value, entry };
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
