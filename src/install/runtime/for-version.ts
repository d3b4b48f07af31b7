/**
 * ensureRuntime for a version about to be installed or switched to (spec:
 * "gentle-shell upgrade" step 3, "with Go on Windows"; the engine's internal
 * serve and ensure-runtime of step 4): our pinned Node and pnpm, and on Windows our
 * pinned Go, so gentle-pi's build never runs the user's own go.exe. Each is
 * reused when its marked folder is there, else acquired and verified.
 */
import type { Layout } from "../../core/layout";
import { parseSource, type Source } from "../../core/source";
import { hostRuntimeContext } from "./host-context";
import type { Host } from "../../io/host";
import { readTextOrNull } from "../../io/files";
import { configuredRegistry } from "../npm-registry";
import { acquireGo } from "./go";
import { ensureRuntimes, type RuntimesOutcome } from "./index";

/**
 * `registry`: the registry our npm reports, when the caller has asked it already (upgrade, update);
 * without it, npm is asked once Node is ready, and only for the official source.
 */
export async function ensureVersionRuntime(
  layout: Layout,
  host: Pick<Host, "env" | "http" | "target">,
  sourceArg: string | undefined,
  registry?: string,
): Promise<RuntimesOutcome & { source: Source }> {
  const { env } = host;
  let source = parseSource(sourceArg, registry ?? "");
  const official = async () => ({
    kind: "official" as const,
    registry: registry ?? (await configuredRegistry(layout, (await readTextOrNull(layout.pnpm.npmrc)) ?? "", env)),
  });
  const ctx = hostRuntimeContext(host, layout, source);
  const outcome = await ensureRuntimes(ctx, { pnpmSource: source.kind === "official" ? official : source });
  if (source.kind === "official") source = await official();
  if (layout.platform === "win32") await acquireGo({ ...ctx, source });
  return { ...outcome, source };
}
