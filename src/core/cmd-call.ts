/**
 * Starting our launcher the way a user's terminal does. On POSIX it is a
 * script the kernel runs. On Windows it is bin\gentle-shell.cmd, and Node
 * refuses to spawn a .cmd without a shell (EINVAL since the 2024 batch-file
 * fix), so cmd.exe runs it. Pure: the caller spawns what this returns.
 *
 * The launcher's path reaches cmd.exe only as a variable's value, never as
 * command text: cmd expands %NAME% once and does not parse the value again,
 * so %, ^, &, ( and ) in the prefix stay literal inside the quotes. /d skips
 * AutoRun commands, /v:off delayed expansion (so ! stays literal), and /s
 * keeps the quoting (cmd drops only the outer pair of quotes).
 */
import { envValue, type Env } from "./environment";
import type { Platform } from "./layout";

/** The variable that carries the launcher's path to cmd.exe, unless the caller names another. */
export const LAUNCHER_PATH_VARIABLE = "GENTLE_SHELL_LAUNCHER_PATH";

/** What cmd.exe may be handed literally after the launcher: options and plain words. */
const CMD_SAFE_ARG = /^-{0,2}[A-Za-z][A-Za-z-]*$/;

export type LauncherCall = { command: string; args: string[]; env: Env; verbatim: boolean } | { refused: string };

export function launcherCall(
  platform: Platform,
  launcher: string,
  args: readonly string[],
  env: Readonly<Env>,
  variable: string = LAUNCHER_PATH_VARIABLE,
): LauncherCall {
  if (platform !== "win32") return { command: launcher, args: [...args], env: { ...env }, verbatim: false };
  const unsafe = args.find((a) => !CMD_SAFE_ARG.test(a));
  if (unsafe !== undefined) return { refused: `the argument ${JSON.stringify(unsafe)} cannot be handed to cmd.exe unchanged` };
  const command = [`"%${variable}%"`, ...args].join(" ");
  const cmd = envValue(env, "ComSpec", "win32", { emptyIsUnset: true }) ?? "cmd.exe";
  return { command: cmd, args: ["/d", "/v:off", "/s", "/c", `"${command}"`], env: { ...env, [variable]: launcher }, verbatim: true };
}
