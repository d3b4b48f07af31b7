/**
 * Engram startup safety, the launch (spec: "Engram startup safety"; "Recovery
 * and setup"; "Recovering an interrupted migration"). Gathers the evidence
 * (the migration marker, the bundled core on disk: published and verified
 * means a regular file in runtime/engram-<v>/, a real folder that carries the
 * runtime marker; the probes and the header), decides, starts the shared
 * server when the decision says so, and gives the variables to a child's
 * environment. engramLaunchEnvironment never throws for an Engram problem:
 * the worst case is memory disabled behind the guard.
 */
import { errnoCode } from "../../core/errno";
import { promises as fs } from "node:fs";
import type { Output } from "../../core/errors";
import { join } from "../../core/native-path";
import type { Env } from "../../core/environment";
import type { Layout } from "../../core/layout";
import { RUNTIME_MARKER } from "../../install/runtime/marker";
import { headerSignal } from "./contract";
import { afterStart, decideEngram, needsProbe, piEngramVariables, type EngramDecision, type EngramEvidence } from "./decision";
import { DEFAULT_ENDPOINT, probeCompatibility, probeOlderVersion, readEngramHeader } from "./probe";
import type { StartOptions } from "./server";

/** The bundled core is published and verified: a regular file in runtime/engram-<v>/, a real folder with the runtime marker. */
export async function ownCoreVerified(layout: Layout): Promise<boolean> {
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
    return errnoCode(error) !== "ENOENT" && errnoCode(error) !== "ENOTDIR";
  }
}

export interface EngramLaunchOptions extends StartOptions {
  /** The bundled core's schema; defaults to the compiled pins. */
  schema?: number | null;
}

/**
 * Which decision a launch asks for (PiLaunch.kind, ../../core/pi-launch.ts): "final" right before a Pi
 * session, the only one that may start the server; "classify" for a Pi subcommand and for setup, after it
 * published the core, which never start one; "skip" for a version or help launch, with no probe at all.
 */
export type EngramAsk = EngramEvidence["kind"];

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
export async function engramLaunchEnvironment(layout: Layout, env: Env, kind: EngramAsk, options: EngramLaunchOptions = {}): Promise<EngramLaunch> {
  const endpoint = options.endpoint ?? DEFAULT_ENDPOINT;
  const paths = { guard: layout.guard, core: layout.engram, url: `http://${endpoint.host}:${endpoint.port}` };
  let decision: EngramDecision;
  try {
    const base = {
      platform: layout.platform,
      env,
      paths,
      kind,
      migrationMarker: kind === "skip" ? false : await migrationMarker(layout),
      coreVerified: kind === "skip" ? false : await ownCoreVerified(layout),
    } satisfies Partial<EngramEvidence>;
    if (!needsProbe(base)) {
      decision = decideEngram(base);
    } else {
      const compatibility = await probeCompatibility(endpoint);
      const evidence: EngramEvidence = { ...base, compatibility };
      // /health only selects the notice's wording; after a timeout it would only add another second.
      if (compatibility.kind === "other" && compatibility.reason !== "timeout") evidence.olderVersion = await probeOlderVersion(endpoint);
      if (compatibility.kind === "refused") {
        const schema = options.schema !== undefined ? options.schema : layout.pins.engram.schema;
        evidence.header = headerSignal(await readEngramHeader(layout.home, layout.platform), schema);
      }
      decision = decideEngram(evidence);
      if (decision.memory === "start") {
        // The server code (and node:child_process) loads only when a server is to be started.
        const { startSharedServer } = await import("./server");
        decision = afterStart(decision, await startSharedServer(layout, env, { ...options, endpoint }));
      }
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

/** Apply an Engram decision to a child's environment and say its notice. */
export function applyEngram(childEnv: Env, engram: { set: Record<string, string>; unset: string[]; notice?: string }, io: Pick<Output, "err">): void {
  Object.assign(childEnv, engram.set);
  for (const k of engram.unset) delete childEnv[k];
  if (engram.notice) io.err(engram.notice);
}
