/**
 * Sanitizing what a Windows prerequisite process left behind (spec: "Windows
 * prerequisite failure diagnostics"). Pure: no file system, no processes.
 *
 * Limits are UTF-16 code units: stdout/stderr 1024 each, the process-error
 * message 256 (only a sanitized native code such as ENOENT, or the fixed
 * fallback "process error"), name/code/errno text 64, signal 32, cause stack
 * 8192. Numeric status/errno stay numbers. A line naming a path or an account
 * (drive letters, backslashes, absolute POSIX paths, SIDs), an encoded ACL
 * (SDDL, icacls rights like (OI)(CI)(F)), an opaque blob (base64, long hex,
 * GUIDs) or a control character is replaced by "[line suppressed]". A
 * credential marker anywhere in a field (token, secret, password, credential,
 * bearer, authorization, cookie, api key, private key, and underscore-separated
 * environment names such as GITHUB_TOKEN, API_KEY or NPM_AUTH) replaces the
 * whole field, continuation lines included, by "[field suppressed]". This
 * filter is deliberately conservative: it may discard useful output, and it is
 * not a general-purpose secret parser.
 */

export const WINDOWS_PROCESS_TIMEOUT_MS = 15_000;
/** Bytes captured per stream. */
export const WINDOWS_PROCESS_MAX_CAPTURE = 1024 * 1024;
/** UTF-16 code units. */
export const WINDOWS_PROCESS_LIMITS = { stream: 1024, message: 256, field: 64, signal: 32, stack: 8192 } as const;

export const LINE_SUPPRESSED = "[line suppressed]";
export const FIELD_SUPPRESSED = "[field suppressed]";
export const PROCESS_ERROR_FALLBACK = "process error";

export interface SanitizedProcessError {
  name: string;
  code?: string;
  errno?: number | string;
  /** A sanitized native error code, or "process error". */
  message: string;
}

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

/** An integer exit status, else null. */
export function sanitizeStatus(value: unknown): number | null {
  return typeof value === "number" && Number.isInteger(value) ? value : null;
}

/** A signal name (SIG...), at most 32 code units, else null. */
export function sanitizeSignal(value: unknown): string | null {
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
