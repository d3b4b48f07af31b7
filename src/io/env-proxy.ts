/**
 * Node's built-in proxy support for this process, turned on at the start of
 * each entry (src/main.ts, src/launch.ts) instead of by --use-env-proxy: with
 * that option a proxy URL Node cannot use (a password holding # or /) made
 * Node die before any code of ours ran, with a stack that printed the URL,
 * password and all. Here the variables are read first (core/proxy-env.ts);
 * one that Node would refuse gets our one sentence, masked, and otherwise
 * http.setGlobalProxyFromEnv gives fetch's dispatcher and the global agents
 * of node:http and node:https (every request of ours, src/io/http-get.ts)
 * the proxy variables, as --use-env-proxy did.
 *
 * Once per process: the launch part may hand over to the full engine, and
 * the single executable runs the engine as a part of itself, each an entry
 * of its own bundle, so the state is kept on globalThis, which they share.
 * With no proxy variable set nothing is loaded for it (a launch's cost).
 */
import { errnoCode } from "../core/errno";
import type { Platform } from "../core/layout";
import { namesAProxy, proxyVariableProblem } from "../core/proxy-env";

type State = { refused: string } | { restore: (() => void) | null };
/** The part of node:http this needs (a test passes its own: the suite's Node 20 has no setGlobalProxyFromEnv). */
export type ProxySwitch = { setGlobalProxyFromEnv(env: NodeJS.ProcessEnv): () => void };
const STATE = Symbol.for("gentle-shell-setup.env-proxy");
const shared = globalThis as { [STATE]?: State };

/**
 * Turn Node's proxy support on when a proxy variable names a proxy: null
 * when that is done (or no proxy is named), else the sentence that says
 * which variable Node could not use and what to do.
 */
export function useEnvProxy(
  env: NodeJS.ProcessEnv = process.env,
  platform = process.platform as Platform,
  http: () => ProxySwitch = () => process.getBuiltinModule("node:http"),
): string | null {
  const done = shared[STATE];
  if (done) return "refused" in done ? done.refused : null;
  if (!namesAProxy(env, platform)) {
    shared[STATE] = { restore: null };
    return null;
  }
  const problem = proxyVariableProblem(env, platform);
  if (problem) {
    shared[STATE] = { refused: problem };
    return problem;
  }
  let restore: () => void;
  try {
    const node = http();
    // Only a Node older than the pinned one (24.14 brought it): never the case for our own runs.
    if (typeof node.setGlobalProxyFromEnv !== "function") {
      const refused = `Node ${process.version} cannot send requests through the proxy that HTTP_PROXY or HTTPS_PROXY names; run this with Node 24.14 or later`;
      shared[STATE] = { refused };
      return refused;
    }
    restore = node.setGlobalProxyFromEnv(env);
  } catch (error) {
    // A rule of Node's that core/proxy-env.ts does not know: its message may hold the URL, so only its code is said.
    const code = errnoCode(error) ?? (error as Error).name;
    const refused = `Node cannot use the proxy that HTTP_PROXY or HTTPS_PROXY names (${code}); correct the variable, percent-encoding the special characters of its password`;
    shared[STATE] = { refused };
    return refused;
  }
  shared[STATE] = { restore };
  return null;
}

/**
 * Before Pi owns this process: fetch's dispatcher and the global agents are
 * Node's own again, as in a Node started for Pi (a user's NODE_USE_ENV_PROXY=1
 * gave those the proxy already, when Node started, as it would Pi's Node).
 */
export function handBackEnvProxy(): void {
  const done = shared[STATE];
  if (!done || "refused" in done || !done.restore) return;
  done.restore();
  shared[STATE] = { restore: null };
}
