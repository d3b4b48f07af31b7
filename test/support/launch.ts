/**
 * Running an installed launcher the way a user's terminal does, on any host:
 * on POSIX the file itself; on Windows a `.cmd` (gentle-shell.cmd, a bundle's
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
