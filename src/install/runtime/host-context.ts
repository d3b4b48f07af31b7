/**
 * The runtime context of this machine (src/install/runtime/recipe.ts,
 * RuntimeContext): the Host's environment, HTTP client and target, with the
 * caller's layout (and its pins, the Host's) and source. Types only: the
 * launch part imports it.
 */
import type { Layout } from "../../core/layout";
import type { Source } from "../../core/source";
import type { RuntimeContext } from "./recipe";
import type { Host } from "../../io/host";

/** What of the Host a runtime context takes: its environment, its HTTP client (every download goes through it) and its target. */
export type RuntimeHost = Pick<Host, "env" | "http" | "target">;

export function hostRuntimeContext(host: RuntimeHost, layout: Layout, source: Source): RuntimeContext {
  return { http: host.http, layout, pins: layout.pins, source, target: host.target, env: host.env };
}
