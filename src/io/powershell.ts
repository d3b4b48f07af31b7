/**
 * The one way the product runs Windows PowerShell (spec: "Windows
 * prerequisite failure diagnostics": windowsProcessCheck's rules).
 *
 * API
 *
 *   runPowerShell(script, data, options?) → Promise<{ stdout, stderr }>
 *   runPowerShellForStatus(script, data, options?) → Promise<{ status, stdout, stderr }>
 *
 *   - The executable is always %SystemRoot%\System32\WindowsPowerShell\v1.0\powershell.exe
 *     (windowsPowerShellPath), never a bare name looked up through the
 *     current folder or PATH. SystemRoot (or, failing that, windir) is read
 *     from options.env (the Host's) and must be drive-absolute
 *     (C:\...); otherwise WindowsPowerShellUnavailableError is thrown and
 *     nothing starts.
 *   - It runs through windowsProcessCheck (options.check, for tests): shell
 *     false, a neutral cwd (%SystemRoot%\System32), no window, stdin ignored,
 *     SIGKILL after 15 seconds, 1 MiB captured per stream, and a failure is
 *     its sanitized WindowsPrerequisiteError.
 *   - Arguments: -NoLogo -NoProfile -NonInteractive, then options.args (for
 *     example -ExecutionPolicy Bypass), then -EncodedCommand with the script
 *     as base64 UTF-16LE. The script is fixed text; every input reaches it as
 *     an environment variable in `data`.
 *   - The environment is minimal, never the parent's whole one: exactly
 *     `data` laid over powerShellEnvironment(options.env), which holds
 *       SystemRoot, windir  the checked SystemRoot: Windows and .NET locate
 *                           system files through them, and PowerShell
 *                           builds its default module path from SystemRoot;
 *       TEMP, TMP           copied when set: .NET's temporary folder
 *                           (Add-Type compiles there), which otherwise falls
 *                           back to the Windows folder.
 *     Nothing else (PATH, PSModulePath, proxies, tokens) is passed.
 *   - startDetachedPowerShell starts the script in a hidden Windows
 *     PowerShell that outlives this process (self-uninstall's delayed
 *     removal): %SystemRoot%\System32\cmd.exe /d /v:off /c start /min
 *     <powershell.exe> ... -WindowStyle Hidden -ExecutionPolicy Bypass
 *     -EncodedCommand <script>, run through windowsProcessCheck with
 *     `detached` (no pipes, its own process group), which waits only for
 *     cmd.exe to have started it. cmd.exe reads that line as command text,
 *     so SystemRoot must hold only letters, digits, `\`, `_`, `.` and `-`
 *     (C:\Windows does), and the whole line must fit cmd.exe's 8191
 *     characters; otherwise WindowsPowerShellUnavailableError and nothing
 *     starts. The data reaches PowerShell through cmd.exe's environment
 *     (`start` passes it on), never on that line.
 *   - runPowerShellForStatus gives a failed run back as its status instead of
 *     throwing (the exit status, or 1 when there is none, with the sanitized
 *     output); a missing SystemRoot still throws.
 */
import { type WindowsProcessDeps, type WindowsProcessOutput, type WindowsProcessRequest, windowsProcessCheck } from "./windows-process/check";
import { isWindowsPrerequisiteError } from "./windows-process/failure";
import { envValue } from "../core/environment";

type Env = Readonly<Record<string, string | undefined>>;

/** Under %SystemRoot%. */
export const WINDOWS_POWERSHELL = "System32\\WindowsPowerShell\\v1.0\\powershell.exe";
export const POWERSHELL_ARGS = ["-NoLogo", "-NoProfile", "-NonInteractive"] as const;
/** Variables copied from the environment when set, besides SystemRoot and windir. */
export const POWERSHELL_PASSED_VARIABLES = ["TEMP", "TMP"] as const;

/**
 * The lines every script starts with (powerShellScript):
 *   - Constrained Language Mode (AppLocker or WDAC policy) blocks the .NET
 *     calls our scripts make, with a message that names neither: such a
 *     PowerShell exits RESTRICTED_EXIT at once, which the caller turns into
 *     one sentence (WindowsPowerShellRestrictedError);
 *   - its output, stderr included, is UTF-8, which is how it is read here
 *     (else it arrives in the console's OEM code page).
 */
export const RESTRICTED_EXIT = 86;
export const POWERSHELL_PREAMBLE = [
  `if ($ExecutionContext.SessionState.LanguageMode -ne 'FullLanguage') { exit ${RESTRICTED_EXIT} }`,
  "try { [Console]::OutputEncoding = New-Object System.Text.UTF8Encoding $false } catch { }",
].join("\n");

/** `script` as it is run: the preamble first. */
export function powerShellScript(script: string): string {
  return `${POWERSHELL_PREAMBLE}\n${script}`;
}

export class WindowsPowerShellRestrictedError extends Error {
  constructor() {
    super(
      "Windows PowerShell runs in Constrained Language Mode here (an AppLocker or WDAC policy), so Gentle Shell's PowerShell steps cannot run; ask your administrator to allow them, or add the PATH entry by hand.",
    );
  }
}

export class WindowsPowerShellUnavailableError extends Error {
  constructor() {
    super("%SystemRoot% is not an absolute folder (C:\\...), so Windows PowerShell cannot be found. Nothing was run.");
  }
}

/** windowsProcessCheck's shape; tests pass a recorder. */
export type ProcessCheck = (request: WindowsProcessRequest, deps?: WindowsProcessDeps) => Promise<WindowsProcessOutput>;

export interface PowerShellOptions {
  /** Where SystemRoot, TEMP and TMP are read (the Host's environment); nothing else of it is passed on. */
  env: Env;
  /** Switches between -NonInteractive and -EncodedCommand. */
  args?: readonly string[];
  check?: ProcessCheck;
  /** For windowsProcessCheck (tests). */
  spawn?: WindowsProcessDeps["spawn"];
  platform?: NodeJS.Platform;
}

export interface PowerShellStatus {
  status: number | null;
  stdout: string;
  stderr: string;
}

const DRIVE_ABSOLUTE = /^[A-Za-z]:\\/;

/** %SystemRoot% (else %windir%) without trailing backslashes, when it is drive-absolute; else null. */
export function windowsSystemRoot(env: Env): string | null {
  const root = envValue(env, "SystemRoot", "win32") ?? envValue(env, "windir", "win32");
  if (!root || !DRIVE_ABSOLUTE.test(root) || root.includes("\0")) return null;
  return root.replace(/\\+$/, "");
}

export function windowsPowerShellPath(env: Env): string {
  const root = windowsSystemRoot(env);
  if (root === null) throw new WindowsPowerShellUnavailableError();
  return `${root}\\${WINDOWS_POWERSHELL}`;
}

/** The environment PowerShell itself gets, before the script's data. */
export function powerShellEnvironment(env: Env): Record<string, string> {
  const root = windowsSystemRoot(env);
  if (root === null) throw new WindowsPowerShellUnavailableError();
  const out: Record<string, string> = { SystemRoot: root, windir: root };
  for (const name of POWERSHELL_PASSED_VARIABLES) {
    const value = envValue(env, name, "win32");
    if (value && !value.includes("\0")) out[name] = value;
  }
  return out;
}

export function runPowerShell(script: string, data: Readonly<Record<string, string>>, options: PowerShellOptions): Promise<WindowsProcessOutput> {
  const { env } = options;
  let request: WindowsProcessRequest;
  let baseEnv: Record<string, string>;
  try {
    request = {
      command: windowsPowerShellPath(env),
      args: [...POWERSHELL_ARGS, ...(options.args ?? []), "-EncodedCommand", Buffer.from(powerShellScript(script), "utf16le").toString("base64")],
      env: data,
    };
    baseEnv = powerShellEnvironment(env);
  } catch (error) {
    return Promise.reject(error);
  }
  const deps: WindowsProcessDeps = { baseEnv };
  if (options.spawn) deps.spawn = options.spawn;
  if (options.platform) deps.platform = options.platform;
  return (options.check ?? windowsProcessCheck)(request, deps).catch((error: unknown) => {
    if (isWindowsPrerequisiteError(error) && error.cause.status === RESTRICTED_EXIT) throw new WindowsPowerShellRestrictedError();
    throw error;
  });
}

/** What cmd.exe may be handed in the one command line it reads: no space, quote, %, !, ^, &, (, ), <, > or |. */
const CMD_SAFE_ROOT = /^[A-Za-z]:\\[A-Za-z0-9_.\\-]*$/;
/** cmd.exe's own limit on a command line. */
export const CMD_LINE_LIMIT = 8191;
export const DETACHED_POWERSHELL_ARGS = ["-WindowStyle", "Hidden", "-ExecutionPolicy", "Bypass"] as const;

/** The cmd.exe request that starts `script` in a hidden, detached Windows PowerShell; throws WindowsPowerShellUnavailableError when it cannot be said safely. */
export function detachedPowerShellRequest(script: string, data: Readonly<Record<string, string>>, env: Env): WindowsProcessRequest {
  const root = windowsSystemRoot(env);
  if (root === null || !CMD_SAFE_ROOT.test(root)) throw new WindowsPowerShellUnavailableError();
  const args = [
    "/d",
    "/v:off",
    "/c",
    "start",
    "/min",
    windowsPowerShellPath(env),
    ...POWERSHELL_ARGS,
    ...DETACHED_POWERSHELL_ARGS,
    "-EncodedCommand",
    Buffer.from(powerShellScript(script), "utf16le").toString("base64"),
  ];
  const command = `${root}\\System32\\cmd.exe`;
  if (command.length + 1 + args.join(" ").length > CMD_LINE_LIMIT) throw new Error("the PowerShell script is too long for cmd.exe's command line");
  return { command, args, env: data, detached: true };
}

/**
 * Start `script` in a hidden Windows PowerShell that outlives this process; resolves once cmd.exe has started it.
 * The data is its environment, laid over powerShellEnvironment(options.env), as for runPowerShell.
 */
export async function startDetachedPowerShell(script: string, data: Readonly<Record<string, string>>, options: PowerShellOptions): Promise<void> {
  const { env } = options;
  const request = detachedPowerShellRequest(script, data, env);
  const deps: WindowsProcessDeps = { baseEnv: powerShellEnvironment(env) };
  if (options.spawn) deps.spawn = options.spawn;
  if (options.platform) deps.platform = options.platform;
  await (options.check ?? windowsProcessCheck)(request, deps);
}

export async function runPowerShellForStatus(script: string, data: Readonly<Record<string, string>>, options: PowerShellOptions): Promise<PowerShellStatus> {
  try {
    const out = await runPowerShell(script, data, options);
    return { status: 0, ...out };
  } catch (error) {
    if (!isWindowsPrerequisiteError(error)) throw error;
    return { status: error.cause.status ?? 1, stdout: error.cause.stdout, stderr: error.cause.stderr };
  }
}

/** What a PATH-registry script answered (spec: "PATH", Registry: the change goes through an injected adapter). */
export type PowerShellResult = PowerShellStatus;
/** Runs a PowerShell script with extra environment variables: the runner the registry adapter's callers inject. */
export type PowerShellRunner = (script: string, env: Record<string, string>) => Promise<PowerShellResult>;

/** The real runner for the PATH registry adapter: this module's runner in `env` (the Host's), with the execution policy bypassed for the script. */
export function windowsPowerShellRunner(env: Env): PowerShellRunner {
  return (script, data) => runPowerShellForStatus(script, data, { env, args: ["-ExecutionPolicy", "Bypass"] });
}
