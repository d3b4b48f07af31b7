/**
 * ensureRuntime for a version about to be installed or switched to (spec:
 * "gentle-shell upgrade" step 3, "with Go on Windows"; the engine's internal
 * ensure-runtime of step 4): our pinned Node and pnpm, and on Windows our
 * pinned Go, so gentle-pi's build never runs the user's own go.exe. Each is
 * reused when its marked folder is there, else acquired and verified.
 */
import type { Env } from "../../core/environment";
import type { Layout } from "../../core/layout";
import { hostTarget } from "../../core/host";
import { parseSource, type Source } from "../../core/source";
import { buildPins } from "../../pins/index";
import { readTextOrNull } from "../../io/files";
import { configuredRegistry } from "../registry";
import { acquireGo } from "./go";
import { ensureRuntimes, type RuntimesOutcome } from "./index";

export async function ensureVersionRuntime(layout: Layout, env: Env, sourceArg: string | undefined): Promise<RuntimesOutcome & { source: Source }> {
  const npmrc = (await readTextOrNull(layout.pnpm.npmrc)) ?? "";
  let source = parseSource(sourceArg, "");
  const official = async () => ({ kind: "official" as const, registry: await configuredRegistry(layout, npmrc, env) });
  const ctx = { layout, pins: buildPins(), source, target: hostTarget(), env };
  const outcome = await ensureRuntimes(ctx, { pnpmSource: source.kind === "official" ? official : source });
  if (source.kind === "official") source = await official();
  if (layout.platform === "win32") await acquireGo({ ...ctx, source });
  return { ...outcome, source };
}
