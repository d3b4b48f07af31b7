/**
 * The completion scripts the install writes (issue 42) for the shell its
 * PATH step chose (its receipt's shell; the user's $SHELL for a link), and
 * what self-uninstall takes back. The scripts come from the cli layer, which
 * makes them from the command tables; this layer only places them.
 *
 * The places are the shell table's (path/shells.ts, each row's
 * `completion`), each the one that shell reads by itself: bash-completion's
 * per-user folder, fish's completions folder, nu's autoload folder. zsh has
 * no per-user folder on fpath and PowerShell no completions folder at all:
 * their files go into the prefix, and the install names the one line to add
 * (the fpath line before compinit in ~/.zshrc, what rustup and uv tell their
 * users; the dot-sourcing lines in the PowerShell profile) rather than a
 * second edit of a user's file.
 *
 * `<prefix>/completions.json` records each file written with its SHA-256.
 * A file already at a place is never replaced unless the record says it is
 * ours and unchanged; self-uninstall removes a recorded file only while it
 * is still what was written, and never anything the record does not name.
 *
 * When (completionsStep, the end of this file): once the PATH step has put
 * the entry in place for a shell, and only with --completions. The install's
 * promise is that HOME holds what it held plus the prefix and the PATH entry
 * (spec: "Self-uninstall"; test/e2e/home-untouched.test.ts), and rustup, uv,
 * deno and mise write no completions unasked either (bun does); `gentle-shell
 * completions <shell>` prints them for anyone who wants them elsewhere. With
 * --no-modify-path no shell is set up, so none are written. A failure here
 * never fails the install: the step's line says what was not written.
 */
import * as fs from "node:fs";
import { dirname, join } from "../core/native-path";
import type { Env } from "../core/environment";
import type { CompletionShell } from "../core/completion/index";
import { type Layout, tildify } from "../core/layout";
import { type CompletionRules, knownShell, SHELLS, type ShellName } from "../path/shells";
import { sha256Of } from "../core/release-manifest";
import { rmdirSync, unlinkSync } from "../io/locked-retry";
import type { PathStepOutcome } from "../path/step";

/** The shells the install writes scripts for: the rows of the shell table with completion rules. */
export type CompletionShellName = Exclude<ShellName, "sh">;
const COMPLETING_SHELLS = (Object.keys(SHELLS) as ShellName[]).filter((n): n is CompletionShellName => SHELLS[n].completion !== null);
export const COMPLETION_COMMANDS = ["gentle-shell", "gentle-shell-setup"] as const;
export type CompletionCommandName = (typeof COMPLETION_COMMANDS)[number];

/** One script for one command in one format, made by the cli layer. */
export type CompletionScripts = (format: CompletionShell) => Array<{ command: CompletionCommandName; text: string }>;

interface Receipt {
  schema: 1;
  files: Array<{ path: string; sha256: string }>;
  /** Folders the install made for them, removed again when empty. */
  dirs: string[];
}

export function completionsReceiptPath(layout: Layout): string {
  return join(layout.prefix, "completions.json");
}

/** The file for `command`'s script in `shell` (the shell table's place for it). */
export function completionPath(shell: CompletionShellName, command: CompletionCommandName, layout: Layout, env: Env): string {
  return completionRules(shell).file({ home: layout.home, env, platform: layout.platform }, layout.prefix, command);
}

/** The shell whose completions the install writes: the PATH step's shell, or $SHELL's when it made a link; null for one without scripts. */
export function completionShell(pathShell: ShellName | null, env: Env): CompletionShellName | null {
  const name = pathShell ?? knownShell(env.SHELL ?? "");
  return name && SHELLS[name].completion ? (name as CompletionShellName) : null;
}

/** The shell table's completion rules of a shell that has them. */
export function completionRules(shell: CompletionShellName): CompletionRules {
  return SHELLS[shell].completion!;
}

/** Every place a receipt may name: a file at any other path is never touched. */
function allowedPaths(layout: Layout, env: Env): Set<string> {
  const out = new Set<string>();
  for (const e of [env, {}]) for (const shell of COMPLETING_SHELLS) for (const c of COMPLETION_COMMANDS) out.add(completionPath(shell, c, layout, e));
  return out;
}

/** The folders above a place the install may make: each below the home (the home and what holds it are never removed). */
function madeFolders(path: string, layout: Layout): string[] {
  const out: string[] = [];
  for (let dir = dirname(path); dir.startsWith(`${layout.home}/`) && dir !== layout.prefix; dir = dirname(dir)) out.push(dir);
  return out;
}

/** The record, keeping only entries at the places the install writes; an empty one when there is none or it cannot be read. */
export function readCompletionsReceipt(layout: Layout, env: Env): Receipt {
  const empty: Receipt = { schema: 1, files: [], dirs: [] };
  let data: Partial<Receipt>;
  try {
    data = JSON.parse(fs.readFileSync(completionsReceiptPath(layout), "utf8")) as Partial<Receipt>;
  } catch {
    return empty;
  }
  if (data?.schema !== 1 || !Array.isArray(data.files) || !Array.isArray(data.dirs)) return empty;
  const allowed = allowedPaths(layout, env);
  const files = data.files.filter((f) => typeof f?.path === "string" && allowed.has(f.path) && typeof f.sha256 === "string" && /^[0-9a-f]{64}$/.test(f.sha256));
  const parents = new Set([...allowed].flatMap((p) => madeFolders(p, layout)));
  return { schema: 1, files, dirs: data.dirs.filter((d): d is string => typeof d === "string" && parents.has(d)) };
}

/** The file's bytes when it is a regular file; null when nothing is there; "other" for a link, a folder or anything else. */
function regularFile(path: string): Buffer | null | "other" {
  const stat = fs.lstatSync(path, { throwIfNoEntry: false });
  if (!stat) return null;
  return stat.isFile() ? fs.readFileSync(path) : "other";
}

export interface CompletionsWritten {
  shell: CompletionShellName;
  written: string[];
  /** A file that is not ours at a place: left as it is. */
  foreign: string[];
}

/** Writes the shell's scripts and records them; throws only when the record cannot be written. */
export function installCompletions(layout: Layout, env: Env, shell: CompletionShellName, scripts: CompletionScripts): CompletionsWritten {
  const receipt = readCompletionsReceipt(layout, env);
  const result: CompletionsWritten = { shell, written: [], foreign: [] };
  for (const { command, text } of scripts(completionRules(shell).format)) {
    const path = completionPath(shell, command, layout, env);
    const there = regularFile(path);
    const recorded = receipt.files.find((f) => f.path === path);
    if (there !== null && (there === "other" || !recorded || sha256Of(there) !== recorded.sha256)) {
      result.foreign.push(path);
      continue;
    }
    const missing: string[] = [];
    for (let dir = dirname(path); !fs.existsSync(dir) && dirname(dir) !== dir; dir = dirname(dir)) missing.push(dir);
    fs.mkdirSync(dirname(path), { recursive: true });
    for (const dir of missing) if (!receipt.dirs.includes(dir)) receipt.dirs.push(dir);
    fs.writeFileSync(path, text, { flag: there === null ? "wx" : "w" });
    receipt.files = [...receipt.files.filter((f) => f.path !== path), { path, sha256: sha256Of(text) }];
    result.written.push(path);
  }
  fs.writeFileSync(completionsReceiptPath(layout), `${JSON.stringify(receipt, null, 2)}\n`);
  return result;
}

export interface CompletionsRemoved {
  removed: string[];
  kept: Array<{ path: string; why: string }>;
}

/** The recorded files outside the prefix (those inside go with it). */
export function recordedCompletionFiles(layout: Layout, env: Env): string[] {
  return readCompletionsReceipt(layout, env)
    .files.map((f) => f.path)
    .filter((p) => !p.startsWith(join(layout.prefix, "completions")));
}

/** Removes each recorded file outside the prefix that is still what the install wrote, then the folders it made, when empty. */
export function removeCompletions(layout: Layout, env: Env): CompletionsRemoved {
  const receipt = readCompletionsReceipt(layout, env);
  const out: CompletionsRemoved = { removed: [], kept: [] };
  const outside = new Set(recordedCompletionFiles(layout, env));
  for (const { path, sha256: sum } of receipt.files.filter((f) => outside.has(f.path))) {
    try {
      const there = regularFile(path);
      if (there === null) continue;
      if (there === "other") out.kept.push({ path, why: "it is no longer the file the install wrote" });
      else if (sha256Of(there) !== sum) out.kept.push({ path, why: "it was changed after the install wrote it" });
      else {
        unlinkSync(fs, path);
        out.removed.push(path);
      }
    } catch (error) {
      out.kept.push({ path, why: `it could not be read or removed (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})` });
    }
  }
  // The deepest first; a folder that holds anything else stays.
  for (const dir of [...receipt.dirs].sort((a, b) => b.length - a.length)) {
    if (dir.startsWith(layout.prefix)) continue;
    try {
      rmdirSync(fs, dir);
    } catch {
      // Not empty, or already gone: it stays as it is.
    }
  }
  return out;
}

/** The shell the PATH step set up: its line's, or null for a link (the user's $SHELL then) or Windows' Path. */
function pathShell(outcome: PathStepOutcome): ShellName | null | "none" {
  const plan = outcome.plan;
  if (plan?.kind === "line") return plan.shell;
  if (plan?.kind === "link") return null;
  if (plan?.kind === "none") return plan.existing.kind === "line" ? plan.existing.shell : plan.existing.kind === "link" ? null : "none";
  return "none";
}

/** What the step's line adds: "; bash completions in <folder>", or why there are none. */
export function completionsStep(layout: Layout, env: Env, outcome: PathStepOutcome, scripts: CompletionScripts): string {
  if (outcome.status !== "applied" && outcome.status !== "already") return "";
  const from = pathShell(outcome);
  const shell = from === "none" ? null : completionShell(from, env);
  if (!shell) return "";
  const show = (p: string) => tildify(p, layout.home);
  try {
    const { written, foreign } = installCompletions(layout, env, shell, scripts);
    const parts: string[] = [];
    if (written.length) {
      const folder = show(dirname(written[0]!));
      parts.push(`${shell} completions in ${folder}`);
      const hint = completionRules(shell).hint;
      const files = SHELLS[shell].files({ home: layout.home, env, platform: layout.platform });
      const startup = show(outcome.file && files.includes(outcome.file) ? outcome.file : files[0]!);
      if (hint) parts.push(hint(folder, startup));
    }
    for (const path of foreign) parts.push(`${show(path)} is not ours, so it was left as it is`);
    return parts.length ? `; ${parts.join("; ")}` : "";
  } catch (error) {
    return `; ${shell} completions were not written (${(error as Error).message})`;
  }
}
