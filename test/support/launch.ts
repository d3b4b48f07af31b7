/**
 * Running an installed launcher the way a user's terminal does, on any host.
 *
 * The e2e tests' launcher run, the one helper for it:
 *
 *   const r = await gs(home, ["upgrade"]);                      // ~/.gentle-shell/bin/gentle-shell, as the home's user (homeEnv)
 *   const r = await gs(i, ["update"], MEMORY_OFF, { cwd });     // an install's own launcher and env (installed.ts)
 *   expect(await versionLines(home)).toEqual(expectedVersion(latest)); // `--version`'s first two lines
 *
 * Underneath, `runLauncher(file, args, options)`: on POSIX the file itself; on Windows a `.cmd` (gentle-shell.cmd, a bundle's
 * install.cmd) through cmd.exe, which Node does not do without a shell.
 *
 * On Windows the file's path reaches cmd.exe as an environment variable's
 * value, never as command text (as src/engine/relaunch.ts hands a launcher
 * over): cmd.exe expands `%GSS_LAUNCH_FILE%` once and does not parse the
 * value again, so a path with a space, `!`, `%`, `^`, `&`, `(`, `,` or a
 * non-ASCII letter is run as it is. /d skips AutoRun, /v:off keeps `!`
 * literal, /s drops only the outer pair of quotes. The arguments are the
 * tests' own: each must be plain text cmd.exe hands on unchanged in quotes.
 */
import { join } from "node:path";
import { homeEnv } from "./fixtures";
import { runCommand, type RunResult } from "./proc";

const CMD_PLAIN = /^[A-Za-z0-9 ._:/\\=@+-]*$/;

/** The cmd.exe command line for `file` (named by GSS_LAUNCH_FILE) and `args`; pure, for a test on any host. */
export function cmdCommandLine(args: readonly string[]): string {
  for (const arg of args) {
    if (!CMD_PLAIN.test(arg)) throw new Error(`${JSON.stringify(arg)} is not an argument cmd.exe hands on unchanged`);
  }
  const quoted = args.map((a) => (a === "" || /\s/.test(a) ? `"${a}"` : a));
  return `"${['"%GSS_LAUNCH_FILE%"', ...quoted].join(" ")}"`;
}

export function runLauncher(
  file: string,
  args: string[],
  options: { env: NodeJS.ProcessEnv; cwd?: string; timeoutMs?: number; input?: string },
): Promise<RunResult> {
  if (process.platform !== "win32" || !/\.(cmd|bat)$/i.test(file)) return runCommand(file, args, options);
  const comspec = options.env.ComSpec || options.env.COMSPEC || process.env.ComSpec || "cmd.exe";
  return runCommand(comspec, ["/d", "/v:off", "/s", "/c", cmdCommandLine(args)], {
    ...options,
    env: { ...options.env, GSS_LAUNCH_FILE: file },
    windowsVerbatimArguments: true,
    windowsHide: true,
  });
}

/** The installed launcher of `home` on Linux and macOS: ~/.gentle-shell/bin/gentle-shell. */
export function launcherIn(home: string): string {
  return join(home, ".gentle-shell", "bin", "gentle-shell");
}

/** Whose launcher runs: a home's (launcherIn(home), with homeEnv(home)), or an install's own launcher and environment (installed.ts's Installed). */
export type LauncherOf = string | { home: string; gs: string; env: NodeJS.ProcessEnv };

/** Memory off by the user's policy: a run that starts Pi does not start the shared Engram server on this machine's default endpoint. */
export const MEMORY_OFF: NodeJS.ProcessEnv = { ENGRAM_STARTUP_POLICY: "disabled" };

/**
 * Run the installed launcher of `of` with `args`, as its user would: its environment with `extra` over it
 * (a variable set to undefined is left out), in `cwd` (default the home); waited on until it exits.
 */
export function gs(
  of: LauncherOf,
  args: string[],
  extra: NodeJS.ProcessEnv = {},
  options: { cwd?: string; input?: string; timeoutMs?: number } = {},
): Promise<RunResult> {
  const [file, home, env] = typeof of === "string" ? [launcherIn(of), of, homeEnv(of)] : [of.gs, of.home, of.env];
  return runLauncher(file, args, { ...options, env: { ...env, ...extra }, cwd: options.cwd ?? home });
}

/** The first `n` lines of a run's output, a Windows line end read as a newline. */
export function firstLines(text: string, n: number): string[] {
  return text.replace(/\r\n/g, "\n").split("\n").slice(0, n);
}

/** What the installed launcher of `of` says to `--version` (gs with `extra`): its first two lines, the Shell's and Pi's versions. */
export async function versionLines(of: LauncherOf, extra: NodeJS.ProcessEnv = {}): Promise<string[]> {
  return firstLines((await gs(of, ["--version"], extra)).stdout, 2);
}

/** The two lines `--version` prints for a release: `gentle-shell <shell>` and `pi <pi>`. */
export function expectedVersion(release: { shell: string; pi: string }): string[] {
  return [`gentle-shell ${release.shell}`, `pi ${release.pi}`];
}
