/**
 * Engram startup safety, reading the evidence (spec: "Engram startup
 * safety": classification never runs an Engram executable and never opens
 * SQLite):
 *
 *  - bounded (1 s) read-only GET /compatibility and GET /health on a direct
 *    loopback socket to 127.0.0.1:7437: node:http with its own connection,
 *    so no proxy setting (HTTP_PROXY with NODE_USE_ENV_PROXY) can route it,
 *    no redirect is followed and no credential is sent;
 *  - the raw header of ~/.engram/engram.db, read without following links.
 */
import { promises as fs } from "node:fs";
import { openOwnFile } from "../../io/safe-fs";
import { join } from "../../core/native-path";
import { ENGRAM_HOST, ENGRAM_PORT, isReadyCompatibility, olderServerVersion, type CompatibilityProbe } from "./contract";

export interface Endpoint {
  host: string;
  port: number;
}

/** The shared server's endpoint: Engram's default. Only tests pass another one. */
export const DEFAULT_ENDPOINT: Endpoint = { host: ENGRAM_HOST, port: ENGRAM_PORT };

export const PROBE_TIMEOUT_MS = 1000;
const MAX_ANSWER_BYTES = 64 * 1024;

export type LoopbackAnswer = { kind: "answer"; status: number; body: string } | { kind: "refused" } | { kind: "failed"; reason: string };

/**
 * One read-only GET on a direct socket to the endpoint, within `timeoutMs`
 * from start to the last byte. Only Host, Accept and Connection are sent.
 */
export async function loopbackGet(endpoint: Endpoint, path: string, timeoutMs = PROBE_TIMEOUT_MS): Promise<LoopbackAnswer> {
  // Loaded on first use: a launch with memory off never asks, and spares their start-up.
  const [{ request }, { connect }] = await Promise.all([import("node:http"), import("node:net")]);
  return new Promise((resolve) => {
    let settled = false;
    const done = (answer: LoopbackAnswer) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.destroy();
      resolve(answer);
    };
    const req = request({
      host: endpoint.host,
      port: endpoint.port,
      path,
      method: "GET",
      agent: false,
      // Our own socket: never a proxy, whatever the environment says.
      createConnection: () => connect({ host: endpoint.host, port: endpoint.port }),
      headers: { host: `${endpoint.host}:${endpoint.port}`, accept: "application/json", connection: "close" },
    });
    const timer = setTimeout(() => done({ kind: "failed", reason: "timeout" }), timeoutMs);
    req.on("error", (error: NodeJS.ErrnoException) => {
      done(error.code === "ECONNREFUSED" ? { kind: "refused" } : { kind: "failed", reason: error.code ?? "error" });
    });
    req.on("response", (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on("data", (chunk: Buffer) => {
        size += chunk.length;
        if (size > MAX_ANSWER_BYTES) return done({ kind: "failed", reason: "answer too large" });
        chunks.push(chunk);
      });
      res.on("end", () => done({ kind: "answer", status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8") }));
      res.on("error", () => done({ kind: "failed", reason: "truncated answer" }));
      res.on("aborted", () => done({ kind: "failed", reason: "truncated answer" }));
    });
    req.end();
  });
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** GET /compatibility, classified: ready only for a 200 with the exact ready contract. */
export async function probeCompatibility(endpoint: Endpoint = DEFAULT_ENDPOINT, timeoutMs = PROBE_TIMEOUT_MS): Promise<CompatibilityProbe> {
  const answer = await loopbackGet(endpoint, "/compatibility", timeoutMs);
  if (answer.kind === "refused") return { kind: "refused" };
  if (answer.kind === "failed") return { kind: "other", reason: answer.reason };
  if (answer.status !== 200) return { kind: "other", reason: `HTTP ${answer.status}` };
  const body = parseJson(answer.body);
  if (body === undefined) return { kind: "other", reason: "malformed answer" };
  return isReadyCompatibility(body) ? { kind: "ready" } : { kind: "other", reason: "not ready" };
}

/** GET /health: the older version the notice may name, else null. */
export async function probeOlderVersion(endpoint: Endpoint = DEFAULT_ENDPOINT, timeoutMs = PROBE_TIMEOUT_MS): Promise<string | null> {
  const answer = await loopbackGet(endpoint, "/health", timeoutMs);
  if (answer.kind !== "answer" || answer.status !== 200) return null;
  return olderServerVersion(parseJson(answer.body));
}

/**
 * The first 100 bytes of <home>/.engram/engram.db, or null. Neither the folder
 * nor the file may be a link; the file must be a regular file, opened
 * read-only with O_NOFOLLOW (and O_NONBLOCK, so a swapped-in FIFO cannot
 * block) and checked again on the open handle: the file lstat saw first,
 * and on Windows, which has no O_NOFOLLOW, still the file at the path after
 * the open (io/safe-fs.ts openOwnFile; `platform` chooses that rule).
 */
export async function readEngramHeader(home: string, platform: string): Promise<Buffer | null> {
  try {
    const dir = join(home, ".engram");
    const dirStat = await fs.lstat(dir);
    if (!dirStat.isDirectory()) return null;
    const file = join(dir, "engram.db");
    const before = await fs.lstat(file, { bigint: true });
    if (!before.isFile()) return null;
    const handle = await openOwnFile(file, { platform });
    try {
      const now = await handle.stat({ bigint: true });
      if (now.ino !== before.ino || now.dev !== before.dev) return null;
      const buffer = Buffer.alloc(100);
      const { bytesRead } = await handle.read(buffer, 0, 100, 0);
      return buffer.subarray(0, bytesRead);
    } finally {
      await handle.close();
    }
  } catch {
    return null;
  }
}
