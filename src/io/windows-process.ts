/**
 * Windows prerequisite processes (spec: "Windows prerequisite failure
 * diagnostics"). The private-folder adapter (src/install/windows-private.ts)
 * runs whoami.exe and Windows PowerShell through this one function.
 *
 * API
 *
 *   windowsProcessCheck({ command, args, env }, deps?) → Promise<{ stdout, stderr }>
 *
 *   - command: an absolute path to an executable (for example
 *     `C:\Windows\System32\whoami.exe`). A .cmd or .bat file (also with
 *     trailing dots or spaces, any case) and a bare or relative name are
 *     refused before anything starts: batch files run through cmd.exe, and a
 *     bare name is resolved through the current folder and PATH.
 *   - args: passed as an argument vector, never through a shell (shell=false).
 *   - env: extra variables laid over the inherited environment; this is how
 *     paths and other data reach a script, never as script text.
 *   - The child starts in a neutral folder (%SystemRoot%\System32, else the
 *     root of the executable's drive; `/` off Windows), with stdin ignored and
 *     no window. It is killed with SIGKILL after 15 seconds. Each stream is
 *     captured up to 1 MiB; more output kills it too.
 *   - Success is exit status 0 without a signal. Anything else throws a
 *     WindowsPrerequisiteError whose message is exactly
 *     "Windows prerequisite process failed" (classification "process-failed")
 *     and whose `cause` is a standard Error carrying only sanitized facts
 *     (WindowsProcessFailureCause): numeric status, signal, timedOut,
 *     outputLimitExceeded, processError { name, code, errno, message } and
 *     bounded stdout/stderr. Its `stack` is rebuilt from those fields: no
 *     callsites, raw spawn errors, command, argv or environment.
 *
 * Sanitizing (limits in UTF-16 code units): stdout/stderr 1024 each, the
 * process-error message 256 (only a sanitized native code such as ENOENT, or
 * the fixed fallback "process error"), name/code/errno text 64, signal 32,
 * cause stack 8192. Numeric status/errno stay numbers. A line naming a path or
 * an account (drive letters, backslashes, absolute POSIX paths, SIDs), an
 * encoded ACL (SDDL, icacls rights like (OI)(CI)(F)), an opaque blob (base64,
 * long hex, GUIDs) or a control character is replaced by "[line suppressed]".
 * A credential marker anywhere in a field (token, secret, password,
 * credential, bearer, authorization, cookie, api key, private key, and
 * underscore-separated environment names such as GITHUB_TOKEN, API_KEY or
 * NPM_AUTH) replaces the whole field, continuation lines included, by
 * "[field suppressed]". This filter is deliberately conservative: it may
 * discard useful output, and it is not a general-purpose secret parser.
 *
 * Nothing is printed: the caller decides what to show. timedOut is true only
 * when our own 15-second timer killed the child; elapsed time alone never
 * sets it.
 */
import { spawn as nodeSpawn } from "node:child_process";
import type { ChildProcess, SpawnOptions } from "node:child_process";

export const WINDOWS_PROCESS_FAILED = "Windows prerequisite process failed";
export const WINDOWS_PROCESS_TIMEOUT_MS = 15_000;
/** Bytes captured per stream. */
export const WINDOWS_PROCESS_MAX_CAPTURE = 1024 * 1024;
/** UTF-16 code units. */
export const WINDOWS_PROCESS_LIMITS = { stream: 1024, message: 256, field: 64, signal: 32, stack: 8192 } as const;

export const LINE_SUPPRESSED = "[line suppressed]";
export const FIELD_SUPPRESSED = "[field suppressed]";
export const PROCESS_ERROR_FALLBACK = "process error";

/** Our own refusals, before anything runs. */
export const BATCH_REJECTED = "ERR_WINDOWS_BATCH_REJECTED";
export const COMMAND_NOT_ABSOLUTE = "ERR_WINDOWS_COMMAND_NOT_ABSOLUTE";
export const OUTPUT_LIMIT = "ERR_CHILD_PROCESS_STDIO_MAXBUFFER";

export interface WindowsProcessRequest {
  command: string;
  args?: readonly string[];
  /** Extra variables (data for the script), laid over the inherited environment. */
  env?: Readonly<Record<string, string>>;
}

export interface WindowsProcessOutput {
  stdout: string;
  stderr: string;
}

export interface SanitizedProcessError {
  name: string;
  code?: string;
  errno?: number | string;
  /** A sanitized native error code, or "process error". */
  message: string;
}

export interface WindowsProcessFailureCause extends Error {
  status: number | null;
  signal: string | null;
  /** Our 15-second timer killed the child. */
  timedOut: boolean;
  /** A stream went over 1 MiB and the child was killed. */
  outputLimitExceeded: boolean;
  processError?: SanitizedProcessError;
  stdout: string;
  stderr: string;
}

export class WindowsPrerequisiteError extends Error {
  readonly classification = "process-failed" as const;
  declare readonly cause: WindowsProcessFailureCause;
  constructor(cause: WindowsProcessFailureCause) {
    super(WINDOWS_PROCESS_FAILED, { cause });
  }
}

export function isWindowsPrerequisiteError(error: unknown): error is WindowsPrerequisiteError {
  return error instanceof WindowsPrerequisiteError;
}

export type SpawnLike = (command: string, args: readonly string[], options: SpawnOptions) => ChildProcess;

export interface WindowsProcessDeps {
  spawn?: SpawnLike;
  platform?: NodeJS.Platform;
  /** The inherited environment (default process.env). */
  baseEnv?: Readonly<Record<string, string | undefined>>;
}

// ---------------------------------------------------------------------------
// Sanitizing (pure)

const CONTROL = /[\u0000-\u001F\u007F-\u009F\u200B-\u200F\u2028\u2029\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFEFF]/;

const PATH_OR_ACCOUNT: RegExp[] = [
  /[A-Za-z]:[\\/]/, // drive paths
  /\\/, // UNC, relative Windows paths, DOMAIN\user
  /(?:^|[\s'"`=([,:;<>|])~?\/[^\s/]/, // absolute POSIX paths, ~/...
  /(?:^|[\s'"`=([,])\.{1,2}\//, // ./ ../
  /file:\/\//i,
  /\bS-1-\d+(?:-\d+)+/i, // SIDs
];

const ENCODED: RegExp[] = [
  /\([A-Za-z]{0,2};[A-Za-z]*;[^;()]*;[^;()]*;[^;()]*;[^;()]*\)/, // SDDL ACE
  /(?:^|[^A-Za-z0-9])[OGDS]:(?:[A-Z]{1,2}|\(|S-1)/, // SDDL owner/group/DACL/SACL
  /\((?:OI|CI|IO|NP|I|F|M|RX|R|W|D|N|DE|RC|WDAC|WO|S|AS|MA|GR|GW|GE|GA|RD|WD|AD|REA|WEA|X|DC|RA|WA)(?:,[A-Z]{1,4})*\)/, // icacls rights
  /(?=[A-Za-z0-9+/]*[0-9+/])[A-Za-z0-9+/]{24,}={0,2}/, // base64-like blobs
  /\b(?:0x)?(?=[0-9A-Fa-f]*[0-9])[0-9A-Fa-f]{16,}\b/, // long hex
  /\b[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}\b/, // GUIDs
];

const CREDENTIAL_WORDS = /token|secret|passw|pwd|credential|bearer|authorization|cookie|api[-_ ]?key|private[-_ ]?key|access[-_ ]?key|session[-_ ]?id/i;
/** Parts of underscore-separated names that mark a credential: API_KEY, GH_PAT, NPM_AUTH, SSH_KEY_FILE ... */
const CREDENTIAL_PARTS = new Set(["key", "keys", "pat", "auth", "pass", "cred", "creds", "sig", "sas", "pw"]);

/** Linear in the text: one alternation, then one pass over underscore-separated names. */
export function hasCredentialMarker(text: string): boolean {
  if (CREDENTIAL_WORDS.test(text)) return true;
  for (const m of text.matchAll(/[A-Za-z0-9_]+/g)) {
    const name = m[0];
    if (!name.includes("_")) continue;
    if (
      name
        .toLowerCase()
        .split("_")
        .some((part) => CREDENTIAL_PARTS.has(part))
    )
      return true;
  }
  return false;
}

/** Why a line is suppressed, or null when it may be kept. */
export function lineSuppression(line: string): "control" | "path" | "encoded" | null {
  if (CONTROL.test(line)) return "control";
  if (PATH_OR_ACCOUNT.some((r) => r.test(line))) return "path";
  if (ENCODED.some((r) => r.test(line))) return "encoded";
  return null;
}

/** At most `limit` UTF-16 code units; a cut ends with "…" and never splits a surrogate pair. */
export function truncateUnits(text: string, limit: number): string {
  if (text.length <= limit) return text;
  let cut = text.slice(0, Math.max(0, limit - 1));
  const last = cut.charCodeAt(cut.length - 1);
  if (last >= 0xd800 && last <= 0xdbff) cut = cut.slice(0, -1);
  return cut + "…";
}

/** One captured stream, as it may appear in a cause. */
export function sanitizeStream(text: string, limit: number = WINDOWS_PROCESS_LIMITS.stream): string {
  if (text === "") return "";
  if (hasCredentialMarker(text)) return FIELD_SUPPRESSED;
  const lines = text.split(/\r?\n/);
  while (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
  const kept: string[] = [];
  let length = 0;
  for (const line of lines) {
    // Only what can still be shown is inspected (bounded work on huge lines);
    // the rest is cut below anyway.
    if (lineSuppression(line.slice(0, limit + 64)) === null) kept.push(line);
    else if (kept[kept.length - 1] !== LINE_SUPPRESSED) kept.push(LINE_SUPPRESSED);
    else continue;
    length += kept[kept.length - 1].length + 1;
    if (length > limit) break;
  }
  return truncateUnits(kept.join("\n"), limit);
}

const TOKEN = /^[A-Z][A-Z0-9_]*$/;

function sanitizeToken(value: unknown): string | undefined {
  if (typeof value !== "string" || !TOKEN.test(value)) return undefined;
  return truncateUnits(value, WINDOWS_PROCESS_LIMITS.field);
}

function sanitizeName(value: unknown): string {
  if (typeof value === "string" && /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(value)) return truncateUnits(value, WINDOWS_PROCESS_LIMITS.field);
  return "Error";
}

function sanitizeStatus(value: unknown): number | null {
  return typeof value === "number" && Number.isInteger(value) ? value : null;
}

function sanitizeSignal(value: unknown): string | null {
  if (typeof value !== "string" || !/^SIG[A-Z0-9]+$/.test(value)) return null;
  return truncateUnits(value, WINDOWS_PROCESS_LIMITS.signal);
}

/** name, code, errno and a message built only from the code. Nothing else of the raw error survives. */
export function sanitizeProcessError(error: unknown): SanitizedProcessError {
  const raw = (typeof error === "object" && error !== null ? error : {}) as Record<string, unknown>;
  const code = sanitizeToken(raw.code);
  const errno = typeof raw.errno === "number" && Number.isFinite(raw.errno) ? raw.errno : sanitizeToken(raw.errno);
  const out: SanitizedProcessError = {
    name: sanitizeName(raw.name),
    message: truncateUnits(code ?? PROCESS_ERROR_FALLBACK, WINDOWS_PROCESS_LIMITS.message),
  };
  if (code !== undefined) out.code = code;
  if (errno !== undefined) out.errno = errno;
  return out;
}

export interface RawProcessFailure {
  status?: unknown;
  signal?: unknown;
  timedOut?: boolean;
  outputLimitExceeded?: boolean;
  /** The raw error (spawn error, our refusal); only selected fields are kept. */
  error?: unknown;
  stdout?: string;
  stderr?: string;
}

function summary(c: Omit<WindowsProcessFailureCause, "name" | "message" | "stack">): string {
  if (c.processError) return `process error ${c.processError.message}`;
  if (c.timedOut) return `killed by ${c.signal ?? "SIGKILL"} at the ${WINDOWS_PROCESS_TIMEOUT_MS / 1000}-second limit`;
  if (c.outputLimitExceeded) return "output over the 1 MiB capture";
  if (c.signal) return `ended by ${c.signal}`;
  return `exit status ${c.status ?? "unknown"}`;
}

/** The error windowsProcessCheck throws, from raw facts (pure; exported for tests and other callers). */
export function windowsProcessFailure(raw: RawProcessFailure): WindowsPrerequisiteError {
  const fields = {
    status: sanitizeStatus(raw.status),
    signal: sanitizeSignal(raw.signal),
    timedOut: raw.timedOut === true,
    outputLimitExceeded: raw.outputLimitExceeded === true,
    ...(raw.error !== undefined ? { processError: sanitizeProcessError(raw.error) } : {}),
    stdout: sanitizeStream(raw.stdout ?? ""),
    stderr: sanitizeStream(raw.stderr ?? ""),
  };
  const message = truncateUnits(summary(fields), WINDOWS_PROCESS_LIMITS.message);
  const cause = new Error(message) as WindowsProcessFailureCause;
  Object.assign(cause, fields);
  const lines = [
    `Error: ${message}`,
    `  status: ${fields.status}`,
    `  signal: ${fields.signal}`,
    `  timedOut: ${fields.timedOut}`,
    `  outputLimitExceeded: ${fields.outputLimitExceeded}`,
  ];
  if (fields.processError) {
    const e = fields.processError;
    lines.push(`  processError.name: ${e.name}`);
    if (e.code !== undefined) lines.push(`  processError.code: ${e.code}`);
    if (e.errno !== undefined) lines.push(`  processError.errno: ${e.errno}`);
    lines.push(`  processError.message: ${e.message}`);
  }
  lines.push(`  stdout: ${JSON.stringify(fields.stdout)}`, `  stderr: ${JSON.stringify(fields.stderr)}`);
  Object.defineProperty(cause, "stack", {
    value: truncateUnits(lines.join("\n"), WINDOWS_PROCESS_LIMITS.stack),
    writable: true,
    configurable: true,
    enumerable: false,
  });
  return new WindowsPrerequisiteError(cause);
}

// ---------------------------------------------------------------------------
// Running

function envValue(env: Readonly<Record<string, string | undefined>>, name: string): string | undefined {
  const key = Object.keys(env).find((k) => k.toUpperCase() === name.toUpperCase());
  return key === undefined ? undefined : env[key];
}

const DRIVE_ABSOLUTE = /^[A-Za-z]:[\\/]/;

/** `.cmd`/`.bat`, as Windows reads the name (trailing dots and spaces dropped, any case). */
export function isBatchFile(command: string): boolean {
  const base = command.split(/[\\/]/).pop() ?? "";
  return /\.(?:cmd|bat)$/i.test(base.replace(/[. ]+$/, ""));
}

export function isAbsoluteCommand(command: string, platform: NodeJS.Platform): boolean {
  return platform === "win32" ? DRIVE_ABSOLUTE.test(command) : command.startsWith("/");
}

/** %SystemRoot%\System32 when SystemRoot is a drive path, else the executable's drive root; `/` off Windows. */
export function neutralCwd(platform: NodeJS.Platform, env: Readonly<Record<string, string | undefined>>, command: string): string {
  if (platform !== "win32") return "/";
  const root = envValue(env, "SystemRoot");
  if (root && DRIVE_ABSOLUTE.test(root) && !root.includes("\0")) return root.replace(/[\\/]+$/, "") + "\\System32";
  return command.slice(0, 2) + "\\";
}

export async function windowsProcessCheck(request: WindowsProcessRequest, deps: WindowsProcessDeps = {}): Promise<WindowsProcessOutput> {
  const platform = deps.platform ?? process.platform;
  const spawn = deps.spawn ?? (nodeSpawn as SpawnLike);
  const baseEnv = deps.baseEnv ?? process.env;
  const { command } = request;
  const args = [...(request.args ?? [])];
  if (isBatchFile(command)) throw windowsProcessFailure({ error: { name: "Error", code: BATCH_REJECTED } });
  if (!isAbsoluteCommand(command, platform)) throw windowsProcessFailure({ error: { name: "Error", code: COMMAND_NOT_ABSOLUTE } });
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(baseEnv)) if (typeof v === "string") env[k] = v;
  for (const [k, v] of Object.entries(request.env ?? {})) {
    const existing = Object.keys(env).find((e) => e.toUpperCase() === k.toUpperCase());
    if (existing !== undefined && platform === "win32") delete env[existing];
    env[k] = v;
  }
  const options: SpawnOptions = {
    cwd: neutralCwd(platform, baseEnv, command),
    env,
    shell: false,
    stdio: ["ignore", "pipe", "pipe"],
    windowsHide: true,
    windowsVerbatimArguments: false,
  };

  return new Promise<WindowsProcessOutput>((resolve, reject) => {
    let child: ChildProcess;
    try {
      child = spawn(command, args, options);
    } catch (error) {
      reject(windowsProcessFailure({ error }));
      return;
    }
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    const size = { out: 0, err: 0 };
    let timedOut = false;
    let outputLimitExceeded = false;
    let spawnError: unknown;
    let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    let settled = false;

    const kill = () => {
      try {
        child.kill("SIGKILL");
      } catch {
        // already gone
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      kill();
    }, WINDOWS_PROCESS_TIMEOUT_MS);

    const collect = (which: "out" | "err", chunks: Buffer[]) => (chunk: Buffer) => {
      if (outputLimitExceeded) return;
      size[which] += chunk.length;
      if (size[which] > WINDOWS_PROCESS_MAX_CAPTURE) {
        outputLimitExceeded = true;
        kill();
        return;
      }
      chunks.push(chunk);
    };
    child.stdout?.on("data", collect("out", out));
    child.stderr?.on("data", collect("err", err));

    const settle = () => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      const stdout = Buffer.concat(out).toString("utf8");
      const stderr = Buffer.concat(err).toString("utf8");
      const status = exit?.code ?? null;
      const signal = exit?.signal ?? null;
      if (spawnError === undefined && !timedOut && !outputLimitExceeded && signal === null && status === 0) {
        resolve({ stdout, stderr });
        return;
      }
      const error = spawnError ?? (outputLimitExceeded ? { name: "RangeError", code: OUTPUT_LIMIT } : undefined);
      reject(windowsProcessFailure({ status, signal, timedOut, outputLimitExceeded, error, stdout, stderr }));
    };

    child.on("error", (error) => {
      if (spawnError === undefined) spawnError = error;
      // A child that never started has no exit and may never close.
      if (child.pid === undefined) settle();
    });
    child.on("exit", (code, signal) => {
      exit = { code, signal };
      // After our kill, a grandchild may hold the pipes open: do not wait for them.
      if (timedOut || outputLimitExceeded) settle();
    });
    child.on("close", (code, signal) => {
      if (!exit) exit = { code, signal };
      settle();
    });
  });
}
