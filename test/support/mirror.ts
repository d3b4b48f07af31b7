/**
 * The artifact mirror: a node:http server that serves a folder laid out as a
 * source (design notes, "Sources"): node/v24.21.0/..., pnpm/..., engram/...,
 * releases/v<shell>/... It supports GET, HEAD and single byte ranges, logs
 * every request, and injects faults per path, settable while it runs:
 *
 *   status        answer with that status code
 *   truncate      send `afterBytes` (default half) of the body, then close
 *   wrong-length  announce Content-Length + `delta` (default +100), send the file, close
 *   gzip          send the file gzip-compressed with Content-Encoding: gzip
 *   redirect      302 (or `status`) to `location`, by default to the same
 *                 path on the mirror's second port (another origin; it
 *                 ignores redirect faults, so it serves the file)
 *   stall         wait `ms` before the headers, or after `afterBytes` body bytes
 *   flip          invert one byte (at `offset`, default the middle)
 *
 * A fault applies `times` times (default: every request) and then is gone.
 *
 * Scopes keep parallel tests apart: `POST /__mirror/scopes` returns a fresh
 * base URL `<url>/s/<scope>` that serves the same folder with its own faults
 * and request log. Control endpoints, per scope (prefix `/s/<scope>`) or not:
 *   GET    /__mirror/requests
 *   PUT    /__mirror/faults   body {"path": "...", "fault": {...}}
 *   DELETE /__mirror/faults
 */
import { randomBytes } from "node:crypto";
import { createReadStream } from "node:fs";
import { readFile, stat } from "node:fs/promises";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { resolve, sep } from "node:path";
import { gzipSync } from "node:zlib";
import { readBody, scopedPath, sendJson } from "./http-util";

export type Fault = (
  | { kind: "status"; status: number; body?: string }
  | { kind: "truncate"; afterBytes?: number }
  | { kind: "wrong-length"; delta?: number }
  | { kind: "gzip" }
  | { kind: "redirect"; location?: string; status?: number }
  | { kind: "stall"; ms: number; afterBytes?: number }
  | { kind: "flip"; offset?: number }
) & { times?: number };

export interface MirrorRequest {
  time: string;
  method: string;
  /** Path relative to the source root, e.g. `pnpm/pnpm-11.1.1.tgz`. */
  path: string;
  port: "main" | "alt";
  range: string | null;
  acceptEncoding: string | null;
  userAgent: string | null;
  status: number;
  fault: Fault["kind"] | null;
}

interface Scope {
  faults: Map<string, Fault & { left: number }>;
  requests: MirrorRequest[];
}

export interface Mirror {
  /** `http://127.0.0.1:<port>` (no trailing slash). */
  url: string;
  /** The second listener, a different origin serving the same scopes. */
  altUrl: string;
  root: string;
  requests: MirrorRequest[];
  setFault(path: string, fault: Fault): void;
  clearFaults(): void;
  stop(): Promise<void>;
}

export async function startMirror(options: { root: string }): Promise<Mirror> {
  const root = resolve(options.root);
  const scopes = new Map<string, Scope>([["", newScope()]]);
  const origins = { main: "", alt: "" };

  const handler = (port: "main" | "alt") => (req: IncomingMessage, res: ServerResponse) => {
    handle(port, req, res).catch((error) => {
      if (!res.headersSent) text(res, 500, String(error));
      else res.destroy();
    });
  };

  async function handle(port: "main" | "alt", req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url ?? "/", "http://mirror");
    const { scopeName, path } = scopedPath(decodeURIComponent(url.pathname));
    const scope = scopes.get(scopeName);
    if (!scope) return text(res, 404, `unknown mirror scope ${scopeName}\n`);

    if (path.startsWith("/__mirror/")) return control(req, res, scopeName, scope, path);

    const rel = path.replace(/^\/+/, "");
    const fault = takeFault(scope, rel, port);
    const entry: MirrorRequest = {
      time: new Date().toISOString(),
      method: req.method ?? "GET",
      path: rel,
      port,
      range: header(req, "range"),
      acceptEncoding: header(req, "accept-encoding"),
      userAgent: header(req, "user-agent"),
      status: 0,
      fault: fault?.kind ?? null,
    };
    scope.requests.push(entry);
    res.on("finish", () => (entry.status = res.statusCode));
    res.on("close", () => (entry.status ||= res.statusCode));

    if (req.method !== "GET" && req.method !== "HEAD") return text(res, 405, "method not allowed\n");
    if (fault?.kind === "status") return text(res, fault.status, fault.body ?? `fault: status ${fault.status}\n`);
    if (fault?.kind === "redirect") {
      const base = scopeName ? `/s/${scopeName}` : "";
      const location = fault.location ?? `${origins.alt}${base}/${rel}`;
      res.writeHead(fault.status ?? 302, { location, "content-length": 0 });
      return res.end();
    }
    if (fault?.kind === "stall" && fault.afterBytes === undefined) await sleep(fault.ms);

    const file = resolve(root, rel);
    if (file !== root && !file.startsWith(root + sep)) return text(res, 403, "outside the mirror\n");
    const st = await stat(file).catch(() => null);
    if (!st?.isFile()) return text(res, 404, `not found: ${rel}\n`);
    return sendFile(req, res, file, st.size, fault);
  }

  async function control(req: IncomingMessage, res: ServerResponse, scopeName: string, scope: Scope, path: string) {
    const body = await readBody(req);
    if (req.method === "POST" && path === "/__mirror/scopes" && !scopeName) {
      const name = randomBytes(6).toString("hex");
      scopes.set(name, newScope());
      return sendJson(res, 200, { scope: name, url: `${origins.main}/s/${name}`, altUrl: `${origins.alt}/s/${name}` });
    }
    if (req.method === "GET" && path === "/__mirror/requests") return sendJson(res, 200, scope.requests);
    if (req.method === "PUT" && path === "/__mirror/faults") {
      let parsed: { path?: unknown; fault?: Fault };
      try {
        parsed = JSON.parse(body);
      } catch {
        return sendJson(res, 400, { error: "body is not JSON" });
      }
      if (typeof parsed.path !== "string" || !parsed.fault || typeof parsed.fault.kind !== "string") {
        return sendJson(res, 400, { error: "expected {path, fault: {kind, ...}}" });
      }
      putFault(scope, parsed.path, parsed.fault);
      return sendJson(res, 200, { ok: true });
    }
    if (req.method === "DELETE" && path === "/__mirror/faults") {
      scope.faults.clear();
      return sendJson(res, 200, { ok: true });
    }
    return sendJson(res, 404, { error: `no control route ${req.method} ${path}` });
  }

  const main = createServer(handler("main"));
  const alt = createServer(handler("alt"));
  origins.main = await listen(main);
  origins.alt = await listen(alt);
  const top = scopes.get("")!;
  return {
    url: origins.main,
    altUrl: origins.alt,
    root,
    requests: top.requests,
    setFault: (path, fault) => putFault(top, path, fault),
    clearFaults: () => top.faults.clear(),
    stop: async () => {
      await Promise.all([close(main), close(alt)]);
    },
  };
}

function newScope(): Scope {
  return { faults: new Map(), requests: [] };
}

function putFault(scope: Scope, path: string, fault: Fault) {
  scope.faults.set(path.replace(/^\/+/, ""), { ...fault, left: fault.times ?? Number.POSITIVE_INFINITY });
}

function takeFault(scope: Scope, rel: string, port: "main" | "alt"): Fault | undefined {
  const rule = scope.faults.get(rel) ?? scope.faults.get("*");
  // The second port is where redirects lead: it serves the file, so a redirect never loops.
  if (!rule || (rule.kind === "redirect" && port === "alt")) return undefined;
  rule.left -= 1;
  if (rule.left <= 0) scope.faults.delete(scope.faults.has(rel) ? rel : "*");
  return rule;
}

async function sendFile(req: IncomingMessage, res: ServerResponse, file: string, size: number, fault?: Fault) {
  const head = req.method === "HEAD";
  if (fault?.kind === "gzip") {
    const body = gzipSync(await readFile(file));
    res.writeHead(200, {
      "content-type": "application/octet-stream",
      "content-encoding": "gzip",
      "content-length": body.length,
    });
    return res.end(head ? undefined : body);
  }
  let start = 0;
  let end = size - 1;
  let status = 200;
  const range = header(req, "range");
  const m = range ? /^bytes=(\d*)-(\d*)$/.exec(range.trim()) : null;
  if (m && (m[1] || m[2])) {
    if (m[1]) {
      start = Number(m[1]);
      if (m[2]) end = Math.min(Number(m[2]), size - 1);
    } else {
      start = Math.max(0, size - Number(m[2]));
    }
    if (start > end || start >= size) {
      res.writeHead(416, { "content-range": `bytes */${size}`, "content-length": 0 });
      return res.end();
    }
    status = 206;
  }
  const length = end - start + 1;
  const headers: Record<string, string | number> = {
    "content-type": "application/octet-stream",
    "accept-ranges": "bytes",
    "content-length": fault?.kind === "wrong-length" ? Math.max(0, length + (fault.delta ?? 100)) : length,
  };
  if (status === 206) headers["content-range"] = `bytes ${start}-${end}/${size}`;
  res.writeHead(status, headers);
  if (head || length === 0) return res.end();

  const cut = fault?.kind === "truncate" ? Math.min(length - 1, fault.afterBytes ?? Math.floor(length / 2)) : Infinity;
  const stallAt = fault?.kind === "stall" && fault.afterBytes !== undefined ? fault.afterBytes : Infinity;
  const flipAt = fault?.kind === "flip" ? (fault.offset ?? Math.floor(size / 2)) - start : -1;
  let sent = 0;
  let stalled = false;
  for await (const data of createReadStream(file, { start, end })) {
    let chunk = data as Buffer;
    if (flipAt >= sent && flipAt < sent + chunk.length) {
      chunk = Buffer.from(chunk);
      chunk[flipAt - sent] = chunk[flipAt - sent]! ^ 0xff;
    }
    if (!stalled && stallAt < sent + chunk.length) {
      const before = Math.max(0, stallAt - sent);
      await write(res, chunk.subarray(0, before));
      await sleep((fault as { ms: number }).ms);
      stalled = true;
      sent += before;
      chunk = chunk.subarray(before);
    }
    if (sent + chunk.length >= cut) {
      await write(res, chunk.subarray(0, cut - sent));
      res.destroy();
      return;
    }
    if (!(await write(res, chunk))) return;
    sent += chunk.length;
  }
  if (fault?.kind === "wrong-length") {
    res.destroy();
    return;
  }
  res.end();
}

/** Resolves once the chunk is handed to the socket (false when the client went away). */
function write(res: ServerResponse, chunk: Buffer): Promise<boolean> {
  if (res.destroyed) return Promise.resolve(false);
  if (chunk.length === 0) return Promise.resolve(true);
  return new Promise((resolve) => res.write(chunk, (error) => resolve(!error)));
}

function header(req: IncomingMessage, name: string): string | null {
  const v = req.headers[name];
  return Array.isArray(v) ? v.join(", ") : (v ?? null);
}

function text(res: ServerResponse, status: number, body: string) {
  res.writeHead(status, { "content-type": "text/plain; charset=utf-8", "content-length": Buffer.byteLength(body) });
  res.end(body);
}

/** A fault's wait; it never keeps the process alive by itself (a test run ends while a stalled answer still waits). */
function sleep(ms: number) {
  return new Promise((r) => setTimeout(r, ms).unref());
}

function listen(server: Server): Promise<string> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      resolve(`http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`);
    });
  });
}

function close(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

/** Talk to a mirror in another process (e.g. the one the global setup started). */
export function mirrorClient(url: string) {
  const origin = url.replace(/\/+$/, "");
  const controls = (base: string) => ({
    async setFault(path: string, fault: Fault) {
      const r = await fetch(`${base}/__mirror/faults`, {
        method: "PUT",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ path, fault }),
      });
      if (!r.ok) throw new Error(`mirror: cannot set a fault (HTTP ${r.status}: ${await r.text()})`);
    },
    async clearFaults() {
      const r = await fetch(`${base}/__mirror/faults`, { method: "DELETE" });
      if (!r.ok) throw new Error(`mirror: cannot clear faults (HTTP ${r.status})`);
    },
    async requests(): Promise<MirrorRequest[]> {
      return (await fetch(`${base}/__mirror/requests`)).json() as Promise<MirrorRequest[]>;
    },
  });
  return {
    ...controls(origin),
    /** A fresh scope: the same files with their own faults and request log. */
    async scope() {
      const r = await fetch(`${origin}/__mirror/scopes`, { method: "POST" });
      if (!r.ok) throw new Error(`mirror: cannot create a scope (HTTP ${r.status})`);
      const { url: scopeUrl, altUrl } = (await r.json()) as { url: string; altUrl: string };
      return { url: scopeUrl, altUrl, ...controls(scopeUrl) };
    },
  };
}
