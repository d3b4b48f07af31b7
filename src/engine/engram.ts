/**
 * Engram startup safety, the I/O (spec: "Engram startup safety"). Gathers the
 * evidence src/core/engram-decision.ts decides on, and starts the shared
 * server when the decision says so:
 *
 *  - the raw header of ~/.engram/engram.db, read without following links and
 *    without opening SQLite (no Engram executable is ever run to classify);
 *  - bounded (1 s) read-only GET /compatibility and GET /health on a direct
 *    loopback socket to 127.0.0.1:7437: node:http with its own connection,
 *    so no proxy setting (HTTP_PROXY with NODE_USE_ENV_PROXY) can route it,
 *    no redirect is followed and no credential is sent;
 *  - the bundled core: published and verified means a regular file in
 *    runtime/engram-<v>/, a real folder that carries the runtime marker;
 *  - `engram serve` started detached, then GET /compatibility polled for up
 *    to 10 s, with a short grace after the child exits so concurrent launches
 *    converge on the winner.
 *
 * engramLaunchEnvironment is what the engine calls; it never throws for an
 * Engram problem: the worst case is memory disabled behind the guard.
 */
import { spawn } from "node:child_process";
import { constants, promises as fs } from "node:fs";
import { request } from "node:http";
import { connect } from "node:net";
import { join } from "pathe";
import type { Env } from "../core/environment";
import type { Layout } from "../core/layout";
import {
  ENGRAM_HOST,
  ENGRAM_PORT,
  afterStart,
  decideEngram,
  engramServeEnvironment,
  headerSignal,
  isReadyCompatibility,
  needsProbe,
  olderServerVersion,
  piEngramVariables,
  type CompatibilityProbe,
  type EngramDecision,
  type EngramEvidence,
} from "../core/engram-decision";
import { launchKind } from "./pi";
import { RUNTIME_MARKER } from "../install/runtime";
import { buildPins } from "../pins/index";

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
export function loopbackGet(endpoint: Endpoint, path: string, timeoutMs = PROBE_TIMEOUT_MS): Promise<LoopbackAnswer> {
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
 * block) and checked again on the open handle.
 */
export async function readEngramHeader(home: string): Promise<Buffer | null> {
  try {
    const dir = join(home, ".engram");
    const dirStat = await fs.lstat(dir);
    if (!dirStat.isDirectory()) return null;
    const file = join(dir, "engram.db");
    const before = await fs.lstat(file);
    if (!before.isFile()) return null;
    const flags = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);
    const handle = await fs.open(file, flags);
    try {
      const now = await handle.stat();
      if (!now.isFile() || now.ino !== before.ino || now.dev !== before.dev) return null;
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

/** The bundled core is published and verified: a regular file in runtime/engram-<v>/, a real folder with the runtime marker. */
export async function bundledCoreVerified(layout: Layout): Promise<boolean> {
  try {
    const [dir, marker, core] = await Promise.all([fs.lstat(layout.engramDir), fs.lstat(join(layout.engramDir, RUNTIME_MARKER)), fs.lstat(layout.engram)]);
    return dir.isDirectory() && marker.isFile() && core.isFile();
  } catch {
    return false;
  }
}

/** <prefix>/config/engram-migration.json: an interrupted migration blocks memory. Anything at that path counts. */
export function migrationMarkerPath(layout: Layout): string {
  return join(layout.config, "engram-migration.json");
}

async function migrationMarker(layout: Layout): Promise<boolean> {
  try {
    await fs.lstat(migrationMarkerPath(layout));
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== "ENOENT" && (error as NodeJS.ErrnoException).code !== "ENOTDIR";
  }
}

/**
 * Start the verified core as plain `engram serve`: detached in its own process
 * group, stdio ignored, unreferenced, no window, in the home folder, so it
 * outlives Pi like a server other agents' hooks start. Resolves with why the
 * child ended (it is never stopped by us).
 */
export function spawnEngramServe(core: string, env: Env, cwd: string): Promise<string> {
  return new Promise((resolve) => {
    let child: ReturnType<typeof spawn>;
    try {
      child = spawn(core, ["serve"], {
        detached: true,
        stdio: "ignore",
        windowsHide: true,
        cwd,
        env: env as NodeJS.ProcessEnv,
        shell: false,
      });
    } catch (error) {
      resolve(`could not be run (${(error as NodeJS.ErrnoException).code ?? "error"})`);
      return;
    }
    child.once("error", (error: NodeJS.ErrnoException) => resolve(`could not be run (${error.code ?? "error"})`));
    child.once("exit", (code, signal) => resolve(signal ? `stopped (${signal})` : `exited (code ${code})`));
    child.unref();
  });
}

export interface StartOptions {
  endpoint?: Endpoint;
  /** How long to poll for ready (10 s). */
  timeoutMs?: number;
  /** How long to keep polling after the child ended (concurrent launches). */
  graceMs?: number;
  intervalMs?: number;
}

/** Start the shared server and wait for the exact ready answer. */
export async function startSharedServer(layout: Layout, env: Env, options: StartOptions = {}): Promise<{ ready: true } | { ready: false; why: string }> {
  const serveEnv = engramServeEnvironment(env, layout.platform);
  if (!serveEnv.ok) return { ready: false, why: `was not started: ${serveEnv.reason}` };
  const endpoint = options.endpoint ?? DEFAULT_ENDPOINT;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const graceMs = options.graceMs ?? 2_000;
  const intervalMs = options.intervalMs ?? 150;
  const started = Date.now();
  let ended: { why: string; at: number } | null = null;
  void spawnEngramServe(layout.engram, serveEnv.env, layout.home).then((why) => {
    ended = { why, at: Date.now() };
  });
  for (;;) {
    const probe = await probeCompatibility(endpoint);
    if (probe.kind === "ready") return { ready: true };
    const now = Date.now();
    const end = ended as { why: string; at: number } | null;
    if (end && now - end.at >= graceMs) return { ready: false, why: `${end.why} before answering ready` };
    if (now - started >= timeoutMs) return { ready: false, why: `did not answer ready within ${Math.round(timeoutMs / 1000)} seconds` };
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

export interface EngramLaunchOptions extends StartOptions {
  /**
   * "pre-pi": right before Pi starts (args decide: a version/help launch skips,
   * a Pi subcommand classifies without starting, anything else is the final
   * decision and may start the server); "setup": after setup published the
   * core, classifies without starting; "none": no probe at all.
   */
  phase: "pre-pi" | "setup" | "none";
  /** What the user typed after gentle-shell (for "pre-pi"). */
  args?: readonly string[];
  /** The bundled core's schema; defaults to the compiled pins. */
  schema?: number | null;
}

export interface EngramLaunch {
  /** Variables to set in Pi's (or setup's children's) environment. */
  set: Record<string, string>;
  /** Variables to remove from it (an outer Shell's ENGRAM_URL on a launch without memory). */
  unset: string[];
  /** One line for stderr, when there is something to say. */
  notice?: string;
  decision: EngramDecision;
}

/** The Engram environment for this launch. Never throws for an Engram problem. */
export async function engramLaunchEnvironment(layout: Layout, env: Env, options: EngramLaunchOptions): Promise<EngramLaunch> {
  const endpoint = options.endpoint ?? DEFAULT_ENDPOINT;
  const paths = { guard: layout.guard, core: layout.engram, url: `http://${endpoint.host}:${endpoint.port}` };
  const kind = options.phase === "none" ? "skip" : options.phase === "setup" ? "classify" : launchKind(options.args ?? []);
  let decision: EngramDecision;
  try {
    const base = {
      platform: layout.platform,
      env,
      paths,
      kind,
      migrationMarker: kind === "skip" ? false : await migrationMarker(layout),
      coreVerified: kind === "skip" ? false : await bundledCoreVerified(layout),
    } satisfies Partial<EngramEvidence>;
    if (!needsProbe(base)) {
      decision = decideEngram(base);
    } else {
      const compatibility = await probeCompatibility(endpoint);
      const evidence: EngramEvidence = { ...base, compatibility };
      // /health only selects the notice's wording; after a timeout it would only add another second.
      if (compatibility.kind === "other" && compatibility.reason !== "timeout") evidence.olderVersion = await probeOlderVersion(endpoint);
      if (compatibility.kind === "refused") {
        const schema = options.schema !== undefined ? options.schema : buildPins().engram.schema;
        evidence.header = headerSignal(await readEngramHeader(layout.home), schema);
      }
      decision = decideEngram(evidence);
      if (decision.memory === "start") decision = afterStart(decision, await startSharedServer(layout, env, { ...options, endpoint }));
    }
  } catch {
    // Fail closed: the guard (or the user's own selection), no URL of ours, the policy disabled.
    decision = {
      ...decideEngram({ platform: layout.platform, env, paths, kind: "skip", migrationMarker: false, coreVerified: false }),
      notice:
        "gentle-shell: Engram memory is disabled for this session: Gentle Shell could not check the Engram server. Gentle Shell keeps working without memory and checks again on the next launch.",
    };
  }
  const { set, unset } = piEngramVariables(decision, env, layout.platform, paths);
  return { set, unset, ...(decision.notice ? { notice: decision.notice } : {}), decision };
}
