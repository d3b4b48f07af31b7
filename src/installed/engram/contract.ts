/**
 * Engram startup safety, what a server and a store must show (spec: "Engram
 * startup safety"; "Compatible reuse and authorization"; "Recovery and
 * setup"). Pure. A bundled Shell only talks to a server that proves itself
 * through GET /compatibility (the exact ready contract below); a version
 * number never proves it, it only selects the older-server notice. When
 * nothing listens, the store's header may say a newer Engram migrated it
 * (the tripwire).
 */

/** The default endpoint of the shared server (Engram's own default port). */
export const ENGRAM_HOST = "127.0.0.1";
export const ENGRAM_PORT = 7437;
export const ENGRAM_DEFAULT_URL = `http://${ENGRAM_HOST}:${ENGRAM_PORT}`;

/** The first version whose server publishes GET /compatibility (Engram PR #1792). */
export const COMPATIBILITY_SINCE: readonly [number, number, number] = [3, 4, 0];

const HEX32 = /^[0-9a-f]{32}$/;

/**
 * The exact ready answer of GET /compatibility: status "ready",
 * active_reuse_authorized true, capability "startup-verified-store-v1",
 * revision 1, source "active", 32-hex instance_id and runtime_id, and no
 * offline_automatic_opening_authorized: true. Other fields are ignored.
 */
export function isReadyCompatibility(value: unknown): boolean {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const v = value as Record<string, unknown>;
  return (
    v.status === "ready" &&
    v.active_reuse_authorized === true &&
    v.capability === "startup-verified-store-v1" &&
    v.revision === 1 &&
    v.source === "active" &&
    typeof v.instance_id === "string" &&
    HEX32.test(v.instance_id) &&
    typeof v.runtime_id === "string" &&
    HEX32.test(v.runtime_id) &&
    v.offline_automatic_opening_authorized !== true
  );
}

/** A canonical numeric x.y.z (optional v, no leading zeros, at most four digits per part), else null. */
export function parseEngramVersion(text: unknown): [number, number, number] | null {
  if (typeof text !== "string") return null;
  const m = /^v?(0|[1-9][0-9]{0,3})\.(0|[1-9][0-9]{0,3})\.(0|[1-9][0-9]{0,3})$/.exec(text);
  return m ? [Number(m[1]), Number(m[2]), Number(m[3])] : null;
}

function older(a: readonly number[], b: readonly number[]): boolean {
  for (let i = 0; i < 3; i++) if (a[i]! !== b[i]!) return a[i]! < b[i]!;
  return false;
}

/**
 * The version a /health answer may name in the notice: only from a JSON object
 * with a 32-hex instance_id and a canonical version older than 3.4.0. Any other
 * answer gives null, and its version string is never shown.
 */
export function olderServerVersion(health: unknown): string | null {
  if (typeof health !== "object" || health === null || Array.isArray(health)) return null;
  const h = health as Record<string, unknown>;
  if (typeof h.instance_id !== "string" || !HEX32.test(h.instance_id)) return null;
  const parsed = parseEngramVersion(h.version);
  if (!parsed || !older(parsed, COMPATIBILITY_SINCE)) return null;
  return parsed.join(".");
}

// --- the header tripwire --------------------------------------------------------

const SQLITE_MAGIC = Buffer.from("SQLite format 3\0", "latin1");

export type HeaderSignal =
  /** A valid header whose user_version is greater than the pinned schema (or any valid header when the schema is unknown). */
  | { kind: "newer"; userVersion: number }
  /** A valid header, equal or lower: no signal either way. */
  | { kind: "not-newer"; userVersion: number }
  /** Absent, short, linked, not a regular file or not an SQLite header: no signal. */
  | { kind: "none" };

/**
 * The first 100 bytes of engram.db against the bundled core's schema: the
 * SQLite magic, a page size (a power of two from 512 to 32768, or 1 for
 * 65536), the file format bytes 18 and 19 each 1 or 2, and user_version at
 * bytes 60-63 (big-endian). A pin without a verified schema (null) counts any
 * readable header as newer.
 */
export function headerSignal(header: Buffer | null, schema: number | null): HeaderSignal {
  if (!header || header.length < 100) return { kind: "none" };
  if (!header.subarray(0, 16).equals(SQLITE_MAGIC)) return { kind: "none" };
  const pageSize = header.readUInt16BE(16);
  const validPage = pageSize === 1 || (pageSize >= 512 && pageSize <= 32768 && (pageSize & (pageSize - 1)) === 0);
  if (!validPage) return { kind: "none" };
  if (![1, 2].includes(header[18]!) || ![1, 2].includes(header[19]!)) return { kind: "none" };
  const userVersion = header.readInt32BE(60);
  if (schema === null || userVersion > schema) return { kind: "newer", userVersion };
  return { kind: "not-newer", userVersion };
}

/** GET /compatibility, classified. */
export type CompatibilityProbe =
  | { kind: "ready" }
  /** Connection refused: nothing listens on the endpoint. */
  | { kind: "refused" }
  /** Anything else: a different service, a timeout, 401/404, an older server, malformed answers, not ready. */
  | { kind: "other"; reason: string };
