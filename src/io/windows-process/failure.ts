/**
 * The one error a Windows prerequisite process gives (spec: "Windows
 * prerequisite failure diagnostics"). Pure.
 *
 * windowsProcessCheck (./check.ts) throws a WindowsPrerequisiteError whose
 * message is exactly "Windows prerequisite process failed" (classification
 * "process-failed") and whose `cause` is a standard Error carrying only
 * sanitized facts (WindowsProcessFailureCause, sanitized by ./sanitize.ts):
 * numeric status, signal, timedOut, outputLimitExceeded, processError
 * { name, code, errno, message } and bounded stdout/stderr. Its `stack` is
 * rebuilt from those fields: no callsites, raw spawn errors, command, argv or
 * environment. Nothing is printed: the caller decides what to show.
 */
import {
  type SanitizedProcessError,
  WINDOWS_PROCESS_LIMITS,
  WINDOWS_PROCESS_TIMEOUT_MS,
  sanitizeProcessError,
  sanitizeSignal,
  sanitizeStatus,
  sanitizeStream,
  truncateUnits,
} from "./sanitize";

export const WINDOWS_PROCESS_FAILED = "Windows prerequisite process failed";

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
