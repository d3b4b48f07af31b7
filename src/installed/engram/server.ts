/**
 * Engram startup safety, starting the shared server (spec: "Engram startup
 * safety", Starting the shared server): the verified core as plain
 * `engram serve`, detached, then GET /compatibility polled for up to 10 s,
 * with a short grace after the child exits so concurrent launches converge
 * on the winner. Shell never stops a server it started or found.
 */
import { startDetached } from "../../io/detached";
import type { Env } from "../../core/environment";
import type { Layout } from "../../core/layout";
import { DEFAULT_ENDPOINT, probeCompatibility, type Endpoint } from "./probe";
import { engramServeEnvironment } from "../../core/environment";

/** Start the verified core as plain `engram serve` in the home folder, so it outlives Pi like a server other agents' hooks start; resolves with why it ended. */
export function spawnEngramServe(core: string, env: Env, cwd: string): Promise<string> {
  return startDetached(core, ["serve"], { env, cwd });
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
