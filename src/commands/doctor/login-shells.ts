/**
 * Does a new terminal find our launcher? (issue 41: "a new login shell of
 * each shell with our receipt finding our launcher first, or what shadows
 * it"; nu and PowerShell since issue 48: every row of path/shells.ts's table
 * that names its program). The receipt (path-entry.json) names the one change
 * the installer made: a line in one shell's startup file, or the
 * ~/.local/bin link. For that shell, when its binary is on this machine, a
 * NEW shell is started as a terminal starts it, in a clean environment, and
 * asked what `gentle-shell` is (`command -v`, nu's `which`, PowerShell's
 * Get-Command: the table's lookup); its answer, links followed, is compared
 * with our launcher's real file.
 *
 * Which shell, started how
 * ------------------------
 * - A profile receipt: the shell whose file it is (path/shells.ts's
 *   profileFiles). ~/.profile is written for "any other shell": which binary
 *   reads it is unknown, so it is not started (path.entry still checks the
 *   line).
 * - A link receipt: the user's $SHELL, if the table knows it (the link works
 *   only where a startup file puts ~/.local/bin on PATH; this is the check
 *   that says whether one does).
 * - Started the way shells.ts says terminals start it, the model the
 *   installer chose the file by: zsh and fish as interactive login shells;
 *   bash as an interactive login shell on macOS, and on other systems as the
 *   interactive non-login shell their terminals start, which is the one that
 *   reads ~/.bashrc (a login bash reads ~/.bashrc only through a ~/.profile
 *   that sources it); nu as a login shell, the one way `nu -c` reads env.nu;
 *   pwsh with -Login and -NonInteractive, reading its profile.
 * - Environment: HOME, USER, LOGNAME, SHELL, TERM=dumb and the PATH login(1)
 *   gives, plus ZDOTDIR and XDG_CONFIG_HOME when set (they say where the
 *   user's shells read their files, and the receipt's path was chosen by
 *   them); nothing of ours, and not this terminal's PATH.
 * - Never on Windows: there is no startup file, the receipt is the user Path
 *   in the registry, which path.entry checks, and a new terminal's PATH is
 *   that registry value.
 *
 * Status levels (the decision, loginShellCheck below)
 * ---------------------------------------------------
 * - ok: its `command -v` resolves to our launcher's real file.
 * - broken: it resolves to another file. A new terminal's `gentle-shell`
 *   runs someone else's program, the same level on-path.ts gives a shadowing
 *   command in this terminal; the sentence names that file's real path and
 *   how to get it out of the way.
 * - warn: an alias or a function of that name (the user's own wrapper, more
 *   often than not; named, not judged).
 * - warn: it finds no gentle-shell at all. path.entry already says broken
 *   when our line or link is gone; when it is there, something in the
 *   startup files undoes it, which is the user's to look at.
 * - warn, not broken: the shell did not answer within the timeout or could
 *   not start. A slow or odd startup file is the user's, and says nothing
 *   about our install; the line names the file.
 * The startup files' own output is never read beyond the answer, nor shown.
 * fish keeps its own state (~/.local/share/fish) and creates it on a first
 * start, as a new terminal would: that is fish's, not doctor's, writing.
 */
import { userInfo } from "node:os";
import { basename, dirname, join } from "../../core/native-path";
import { envValue, type Env } from "../../core/environment";
import { tildify, type Layout } from "../../core/layout";
import { pathEntries } from "../../path/entry-plan";
import { COMMAND_NAME, profileFiles, SHELLS, shellFor, type ShellName } from "../../path/shells";
import { isCommandFile } from "../../path/step";
import type { ReadReceipt } from "../../path/receipt-file";
import { askShell, realFile, type ShellAnswer } from "../../io/login-shell";
import { managerOf, migrateSentence } from "./on-path";
import type { DoctorContext } from "./context";
import type { Check } from "./plan";
import { doctorFix } from "../../core/repair-command";

/** The shells doctor can start: every row of the shell table that names its program (all but sh). */
export type LoginShell = Exclude<ShellName, "sh">;

function asLoginShell(shell: ShellName | undefined): LoginShell | null {
  return shell && SHELLS[shell].program ? (shell as LoginShell) : null;
}

/** A few seconds: a startup file slower than that is named, not waited for. */
export const LOGIN_SHELL_TIMEOUT_MS = 5000;

/** How long `shell` is given: a few seconds, or its row's own longer start (pwsh starts .NET twice for -Login). */
export function answerWithinMs(shell: LoginShell): number {
  return SHELLS[shell].startsWithinMs ?? LOGIN_SHELL_TIMEOUT_MS;
}

/** What asking one shell gave: its answer, and the real file of a path answer. */
export type LoginAnswer = ShellAnswer & { real?: string | null };

/** The process side, behind an interface so the decision is tested with fakes. */
export interface LoginShellRunner {
  /** The shell's binary on this machine, or null. */
  find(shell: LoginShell): string | null;
  /** Start it as a new terminal would and ask it `command -v gentle-shell`. */
  ask(shell: LoginShell, binary: string): Promise<LoginAnswer>;
}

/** Which shell the receipt's entry is for, and the file a person would look at. Pure. */
export function receiptShell(layout: Layout, env: Env, read: ReadReceipt | null): { shell: LoginShell; file: string } | null {
  if (layout.platform === "win32" || read?.status !== "valid") return null;
  const r = read.receipt;
  if (r.kind === "profile") {
    const shell = asLoginShell(profileFiles(layout.home, env, layout.platform).find((f) => f.path === r.path)?.shell);
    return shell ? { shell, file: r.path } : null;
  }
  if (r.kind === "link") {
    const shell = asLoginShell(shellFor(env));
    return shell ? { shell, file: r.path } : null;
  }
  return null;
}

/** The flags a terminal starts `shell` with (the shell table's; see the header). */
export function terminalFlags(shell: LoginShell, platform: Layout["platform"]): string[] {
  return SHELLS[shell].terminal(platform);
}

/** The PATH login(1) gives: Debian's login.defs ENV_PATH without its games folders; macOS's (path_helper adds the rest). */
export function loginPath(platform: Layout["platform"]): string {
  return platform === "darwin" ? "/usr/bin:/bin:/usr/sbin:/sbin" : "/usr/local/bin:/usr/bin:/bin";
}

/** The clean environment of the new shell. */
export function loginEnv(layout: Layout, env: Env, binary: string): Env {
  const user = env.USER || env.LOGNAME || safeUserName();
  const out: Env = { HOME: layout.home, SHELL: binary, TERM: "dumb", PATH: loginPath(layout.platform) };
  if (user) Object.assign(out, { USER: user, LOGNAME: user });
  for (const name of ["ZDOTDIR", "XDG_CONFIG_HOME"]) if (env[name]) out[name] = env[name];
  return out;
}

function safeUserName(): string | undefined {
  try {
    return userInfo().username;
  } catch {
    return undefined;
  }
}

/** The real runner: the binary from $SHELL or PATH (this terminal's, then login's). */
export function realRunner(layout: Layout, env: Env, timeoutMs?: number): LoginShellRunner {
  return {
    find(shell) {
      const program = SHELLS[shell].program!;
      const own = env.SHELL;
      if (own?.startsWith("/") && basename(own) === program && isCommandFile(own, { platform: layout.platform })) return own;
      const dirs = [...pathEntries(envValue(env, "PATH", layout.platform), layout.platform), ...loginPath(layout.platform).split(":")];
      return dirs.map((d) => join(d, program)).find((f) => f.startsWith("/") && isCommandFile(f, { platform: layout.platform })) ?? null;
    },
    async ask(shell, binary) {
      const answer = await askShell({
        binary,
        flags: terminalFlags(shell, layout.platform),
        command: (begin, end) => SHELLS[shell].lookup(COMMAND_NAME, begin, end),
        env: loginEnv(layout, env, binary),
        cwd: layout.home,
        timeoutMs: timeoutMs ?? answerWithinMs(shell),
      });
      if (answer.kind !== "answered" || !answer.text.startsWith("/")) return answer;
      return { ...answer, real: await realFile(answer.text.split("\n")[0]!) };
    },
  };
}

export interface LoginFacts {
  shell: LoginShell;
  /** The receipt's file (or link). */
  file: string;
  answer: LoginAnswer;
  /** Our launcher's real file. */
  launcherReal: string;
  /** The prefix's real path (for managerOf). */
  prefixReal: string;
}

/** The one check for one shell's answer. Pure. */
export function loginShellCheck(layout: Layout, facts: LoginFacts, fixCommand: string): Check {
  const show = (p: string) => tildify(p, layout.home);
  const { shell, answer } = facts;
  const id = `path.login:${shell}`;
  const a = shell === "bash" && layout.platform !== "darwin" ? "a new bash" : `a new ${shell} login`;
  const file = show(facts.file);
  if (answer.kind === "timeout")
    return {
      group: "path",
      id,
      status: "warn",
      line: `${a} did not answer within ${answerWithinMs(shell) / 1000} s; its startup files (${file} among them) are slow or wait for input`,
    };
  if (answer.kind === "failed")
    return { group: "path", id, status: "warn", line: `${a} could not be asked (${answer.reason}); its startup files include ${file}` };
  const first = answer.text.split("\n")[0] ?? "";
  if (!first)
    return {
      group: "path",
      id,
      status: "warn",
      line: `${a} does not find gentle-shell: our entry in ${file} does not reach it`,
      repair: {
        kind: "command",
        sentence: `check that ${file} still holds our line and that nothing read after it sets PATH anew; ${fixCommand} puts a missing line back`,
      },
    };
  if (!first.startsWith("/"))
    return {
      group: "path",
      id,
      status: "warn",
      line: `${a} runs its own alias or function for gentle-shell (${first.slice(0, 120)}), not our launcher directly`,
    };
  const real = answer.real ?? first;
  if (real === facts.launcherReal) return { group: "path", id, status: "ok", line: `${a} finds our launcher` };
  const manager = managerOf(real, facts.prefixReal);
  const sentence =
    manager === "npm" || manager === "pnpm"
      ? migrateSentence()
      : SHELLS[shell].whenShadowed
        ? `remove ${show(first)}; ${SHELLS[shell].whenShadowed}`
        : `remove ${show(first)}, or put ${show(dirname(first))} after ${show(layout.bin)} on PATH in your startup files`;
  const via = first === real ? "" : ` (found as ${show(first)})`;
  return {
    group: "path",
    id,
    status: "broken",
    line: `${a} runs ${show(real)}${via}, not our launcher: it comes first on that shell's PATH`,
    repair: { kind: "command", sentence },
  };
}

/** The login-shell check for the receipt's shell, when its binary is here. */
export async function loginShellChecks(
  layout: Layout,
  env: Env,
  read: ReadReceipt | null,
  fixCommand: string,
  runner: LoginShellRunner = realRunner(layout, env),
): Promise<Check[]> {
  const target = receiptShell(layout, env, read);
  if (!target) return [];
  const binary = runner.find(target.shell);
  if (!binary) return [];
  const answer = await runner.ask(target.shell, binary);
  const launcherReal = (await realFile(layout.launcher)) ?? layout.launcher;
  const prefixReal = (await realFile(layout.prefix)) ?? layout.prefix;
  return [loginShellCheck(layout, { ...target, answer, launcherReal, prefixReal }, fixCommand)];
}

/** doctor's entry: the receipt as status's probe reads it (one that cannot be read is path.receipt's to name). */
export async function doctorLoginShells(ctx: DoctorContext): Promise<Check[]> {
  let read: ReadReceipt | null;
  try {
    read = ctx.probes.readReceipt();
  } catch {
    read = null;
  }
  return loginShellChecks(ctx.layout, ctx.env, read, doctorFix(ctx.program));
}
