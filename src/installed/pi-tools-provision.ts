/**
 * Pi's own tools before Pi starts (spec: "Launcher in a bundled install",
 * Pi's own tools; rules in src/core/pi-tool-rules.ts). For the home Gentle Shell
 * owns (agentHomeIsOurs, the same test as Pi's npmCommand), each of fd and
 * ripgrep that is pinned and absent from <agent home>/bin is taken from its
 * verified copy under runtime/, acquired first from the install's source
 * when needed. A linked or foreign home, a file already there (the user's, or
 * one Pi downloaded), a null pin, or an offline launch with nothing under
 * runtime/ changes nothing: Pi then behaves as it does without Shell. Only a
 * failure to acquire a pinned tool is said, in one line; Pi still starts.
 */
import type { Env } from "../core/environment";
import type { Output } from "../core/errors";
import { tildifyText, type Layout } from "../core/layout";
import { PI_TOOLS, piToolDecision, toolPin, type PiTool, type ToolDecision } from "../core/pi-tool-rules";
import { parseSource } from "../core/source";
import { hostRuntimeContext, type RuntimeHost } from "../install/runtime/host-context";
import type { Host } from "../io/host";
import { join } from "../core/native-path";
import { ensureRealFolder, lstatOrNull, readTextOrNull, writeFileAtomic } from "../io/files";
import type { RuntimeContext } from "../install/runtime/recipe";
import { existingRuntime } from "../install/runtime/marker";
import { toolPresence, toolRuntimeDir } from "../install/runtime/pi-tools-presence";
import type { PrivateInstall } from "./private-install";
import { agentHomeIsOurs } from "./pi-settings";
import { rememberedSource } from "../install/remembered-source";
import { rm } from "../io/locked-retry";

/** A runtime context's client, layout, pins, source, target and environment, and what a launch adds. */
export interface PiToolsContext extends Pick<RuntimeContext, "http" | "layout" | "pins" | "source" | "target" | "env"> {
  /** The launch is offline (PI_OFFLINE, --offline): only a folder source may be read. */
  offline: boolean;
  /** Use only what is verified under runtime/ already (a launch after a recent failed download). */
  noFetch?: boolean;
}

export interface PiToolReport {
  tool: PiTool;
  decision: ToolDecision;
  /** placed: written now; taken: something appeared there meanwhile and was kept; failed: see error. */
  outcome?: "placed" | "taken" | "failed";
  error?: string;
}

async function inRuntime(layout: Layout, tool: PiTool): Promise<boolean> {
  const dir = toolRuntimeDir(layout, tool);
  if (!(await lstatOrNull(dir))) return false;
  return existingRuntime(dir, tool.name, layout.runtime).catch(() => false);
}

/** A download is allowed unless told not to, and offline only from a folder source. */
function mayFetchFor(ctx: PiToolsContext): boolean {
  return !ctx.noFetch && (!ctx.offline || ctx.source.kind === "folder");
}

/** What the rules decide for `tool` now, from what is on disk; reads only. */
async function decideTool(ctx: PiToolsContext, tool: PiTool, homeOurs: boolean, mayFetch: boolean): Promise<ToolDecision> {
  const { layout, pins } = ctx;
  const { version, archives } = toolPin(pins, tool);
  const pinned = Boolean(archives[ctx.target]?.sha256);
  const presence = homeOurs ? await toolPresence(layout, tool, version) : "other";
  return piToolDecision({ homeOurs, pinned, presence, inRuntime: pinned && (await inRuntime(layout, tool)), mayFetch });
}

/** Provision what the rules allow; never throws (a failure is reported, and Pi behaves as without Shell). */
export async function ensurePiTools(ctx: PiToolsContext): Promise<PiToolReport[]> {
  const { layout, pins } = ctx;
  const homeOurs = (await agentHomeIsOurs(layout)) === null;
  const mayFetch = mayFetchFor(ctx);
  const runtime: RuntimeContext = {
    http: ctx.http,
    layout,
    pins,
    source: ctx.source,
    target: ctx.target,
    env: ctx.env,
    // A launch waits on this: fewer, quicker retries than an install, and a dead network gives up within about 20 s.
    fetch: { download: { attempts: 2, backoffMs: 250, timeoutMs: 60_000, stallMs: 10_000 } },
  };
  return Promise.all(
    PI_TOOLS.map(async (tool): Promise<PiToolReport> => {
      const { version } = toolPin(pins, tool);
      let decision: ToolDecision | null = null;
      try {
        decision = await decideTool(ctx, tool, homeOurs, mayFetch);
        if (decision.action !== "provision") return { tool, decision };
        // Archive and download code loads only when a tool must be placed (most launches find both in place).
        const { ensurePiToolRuntime, placePiTool } = await import("../install/runtime/pi-tool-runtime");
        if (decision.fetch) await ensurePiToolRuntime(runtime, tool);
        return { tool, decision, outcome: await placePiTool(layout, tool, version, { replace: decision.replace }) };
      } catch (error) {
        // Whatever failed (reading the folder, the download, the check, the copy), Pi still starts.
        return { tool, decision: decision ?? { action: "provision", fetch: true }, outcome: "failed", error: (error as Error).message };
      }
    }),
  );
}

/** The lines a launch prints: only failures, one each. */
export function piToolLines(reports: PiToolReport[]): string[] {
  return reports
    .filter((r) => r.outcome === "failed")
    .map((r) => `gentle-shell: Pi's ${r.tool.name} was not provisioned (${r.error}); Pi looks for it itself.`);
}

/** A launch whose download failed waits this long before a launch tries again (setup always tries). */
export const LAUNCH_RETRY_MS = 24 * 60 * 60 * 1000;

/** Where the last failed launch-time download is remembered, so a dead network costs one slow start, not every one. */
export function toolFailureRecord(layout: Layout): string {
  return join(layout.config, "pi-tools-failed.json");
}

async function failedRecently(layout: Layout, now: number): Promise<boolean> {
  try {
    const at = (JSON.parse((await readTextOrNull(toolFailureRecord(layout))) ?? "{}") as { at?: unknown }).at;
    return typeof at === "number" && now - at >= 0 && now - at < LAUNCH_RETRY_MS;
  } catch {
    return false;
  }
}

/** The tools' context for a launch or setup; `quiet` after a launch's recent failed download. */
async function toolsContext(install: PrivateInstall, host: RuntimeHost, offline: boolean, options: { launch: boolean }, now: number) {
  const { layout } = install;
  const quiet = options.launch && (await failedRecently(layout, now));
  const source = parseSource(await rememberedSource(layout), "");
  const ctx: PiToolsContext = { ...hostRuntimeContext(host, layout, quiet ? { kind: "official", registry: "" } : source), offline: offline || quiet };
  return { ctx, quiet };
}

/**
 * Would this launch place a tool (and so need the download and archive code)?
 * Reads only; a question it cannot answer counts as yes, so the full engine
 * reports it. The launch part (../engine/launch-part.ts) asks before anything changes.
 */
export async function piToolsWouldChange(install: PrivateInstall, host: RuntimeHost, offline: boolean): Promise<boolean> {
  try {
    const { ctx } = await toolsContext(install, host, offline, { launch: true }, Date.now());
    const homeOurs = (await agentHomeIsOurs(ctx.layout)) === null;
    const mayFetch = mayFetchFor(ctx);
    const decisions = await Promise.all(PI_TOOLS.map((tool) => decideTool(ctx, tool, homeOurs, mayFetch)));
    return decisions.some((d) => d.action === "provision");
  } catch {
    return true;
  }
}

/**
 * Before Pi starts (`launch`), and in setup: the install's own source
 * (config/install-source), this build's pins. After a launch's download
 * failed, later launches use only what is already verified under runtime/
 * for a day and say nothing; setup tries again at once, and a success
 * forgets the failure.
 */
export async function provisionPiTools(
  install: PrivateInstall,
  env: Env,
  offline: boolean,
  io: Pick<Output, "err"> & Pick<Host, "http" | "target">,
  options: { launch: boolean },
): Promise<void> {
  const { layout } = install;
  const now = Date.now();
  const { ctx, quiet } = await toolsContext(install, { env, http: io.http, target: io.target }, offline, options, now);
  const reports = await ensurePiTools(ctx);
  const failed = reports.some((r) => r.outcome === "failed");
  if (failed && !quiet) {
    await ensureRealFolder(layout.config, 0o700)
      .then(() => writeFileAtomic(toolFailureRecord(layout), JSON.stringify({ at: now }) + "\n", 0o600))
      .catch(() => undefined);
  } else if (!failed && reports.some((r) => r.outcome === "placed")) {
    await rm(toolFailureRecord(layout), { force: true }).catch(() => undefined);
  }
  if (quiet) return;
  for (const line of piToolLines(reports)) io.err(tildifyText(line, layout.home));
}
