/**
 * The runtime context of this machine (src/install/runtime/recipe.ts,
 * RuntimeContext): the layout's pins (the Host's) and this machine's
 * target, with the caller's layout, source and environment. Light on purpose
 * (types and two small modules): the launch part imports it.
 */
import type { Env } from "../../core/environment";
import type { Layout } from "../../core/layout";
import { hostTarget } from "../../core/machine";
import type { Source } from "../../core/source";
import type { RuntimeContext } from "./recipe";
import type { HttpClient } from "../../io/http-client";

/** `http`: the Host's HTTP client, which every download of the context goes through. */
export function hostRuntimeContext(layout: Layout, source: Source, env: Env, http: HttpClient): RuntimeContext {
  return { http, layout, pins: layout.pins, source, target: hostTarget(), env };
}
