/**
 * Starting the pinned Pi once the engine has decided the launch (issue 29).
 * core/pi-start.ts decides how; this file does it.
 *
 * In this process (the usual case): the process becomes the one a fresh
 * `node cli.js <args>` with Pi's environment would be, then Pi's CLI is
 * imported and owns the process from then on, its exit code included. What a
 * second Node gave for free, and what is done instead:
 *   - process.argv is [node, cli.js, ...args] and process.env is exactly Pi's
 *     (privateChildEnv with the Engram decision): every variable the engine
 *     had and Pi would not is removed.
 *   - process.execArgv is empty, as Pi's Node would have it: the engine runs
 *     with no Node option (Pi stays in this Node only then, core/pi-start.ts).
 *   - The proxy: when a proxy variable is set, the engine gave the global
 *     http and https agents and fetch's dispatcher the proxy settings at its
 *     start (../io/env-proxy.ts); they are Node's own again, the ones a Node
 *     started for Pi has (with the proxy settings only when the user asked
 *     for them with NODE_USE_ENV_PROXY=1, which Node applied when it
 *     started, as it would for Pi). The engine's idle keep-alive connections
 *     (the startup offer's registry question) are closed first, so none holds
 *     Pi's exit back. Pi installs its own fetch dispatcher, which follows the
 *     proxy variables itself.
 *   - Signals and the exit code: the engine installs no signal handler on the
 *     way to Pi (the offer's panel removes its own), so Pi's handlers, or
 *     Node's defaults, are the only ones; a signal Pi does not handle ends the
 *     process with that signal, as before. The exit code is Pi's: main.ts
 *     does not set one after the hand-over.
 *   - The terminal: nothing the engine did leaves the terminal's modes
 *     changed (the offer's panel turns raw mode off and pauses stdin); Pi
 *     sets and restores its own.
 *   - process.title: Pi sets "pi" itself, which on Linux is also the kernel's
 *     name for the process (/proc/<pid>/comm).
 *   - What the engine leaves loaded: its one bundled script (engine.cjs) and
 *     the Node built-ins it used; no timer, socket or listener of its own.
 *   - The compile cache: the engine's start file turned it on in the
 *     version's own 0700 folder (or the user's NODE_COMPILE_CACHE), so Pi's
 *     `enableCompileCache()` finds it on and Pi's compiled code is kept there
 *     too, private to this user, instead of in the shared temporary folder.
 *     The start file's exit hook writes it under umask 077.
 * In a fresh Node (a user's NODE_OPTIONS, a launcher of an older version):
 * execve on POSIX, a child sharing the terminal on Windows; with
 * --use-system-ca unless the user set NODE_USE_SYSTEM_CA.
 */
import { flushCompileCache } from "node:module";
import { pathToFileURL } from "node:url";
import { EXIT } from "../core/errors";
import { systemStoreOptions, type Env } from "../core/environment";
import { piStartPlan } from "../core/pi-start";
import { handBackEnvProxy } from "../io/env-proxy";
import type { Host } from "../io/host";
import type { Platform } from "../core/layout";

/** What runEngine returns once Pi owns this process: main.ts sets no exit code after it. */
export const HANDED_TO_PI = "handed-to-pi" as const;
export type HandedToPi = typeof HANDED_TO_PI;

export interface PiStartRequest {
  node: string;
  piCli: string;
  /** Pi's arguments (piArguments: the version's gentle-pi first). */
  args: string[];
  /** Pi's environment. */
  env: Env;
  platform: Platform;
  /** The environment this Node started with. */
  startEnv: Env;
}

type Execve = (file: string, args: string[], env: Env) => never;

/** What the hand-over needs of the Host: a line for a failure, and its streams to give back to Pi. */
export type PiStartHost = Pick<Host, "err" | "releaseStreams" | "http">;

export async function startPi(request: PiStartRequest, io: PiStartHost): Promise<number | HandedToPi> {
  const execve = (process as unknown as { execve?: Execve }).execve;
  const plan = piStartPlan({
    platform: request.platform,
    startEnv: request.startEnv,
    piEnv: request.env,
    execArgv: process.execArgv,
    canExecve: typeof execve === "function",
  });
  if (plan.how === "in-process") return piInThisProcess(request, io);
  const { node, piCli, env } = request;
  // The system's certificate store by Node's option, not a variable Pi's children would inherit.
  const args = [...systemStoreOptions(env, request.platform), piCli, ...request.args];
  if (plan.how === "execve" && execve) {
    // Replace the engine with Pi: no extra process, signals and exit codes pass through untouched.
    // Node writes the engine's compile cache (../install/engine-start.ts) at exit, which execve skips:
    // written here, kept to this user (files 0600), and Pi gets the user's own umask back.
    const umask = process.umask(0o077);
    flushCompileCache?.();
    process.umask(umask);
    execve(node, [node, ...args], env);
  }
  // Only where execve is missing (Windows): Pi as a child, sharing the terminal (io/child-signals.ts).
  const { childOutcome, startInTerminal } = await import("../io/child-signals");
  const outcome = await childOutcome(startInTerminal(node, args, { env }));
  if ("code" in outcome) return outcome.code;
  io.err(`gentle-shell: could not start Pi: ${outcome.failed}`);
  return EXIT.failure;
}

/** Make this process the one `node cli.js <args>` would be, then load Pi's CLI into it. */
async function piInThisProcess(request: PiStartRequest, io: PiStartHost): Promise<number | HandedToPi> {
  const { piCli, args, env } = request;
  becomePiProcess(process, env, [process.argv[0] ?? request.node, piCli, ...args], io);
  try {
    await import(pathToFileURL(piCli).href);
  } catch (error) {
    io.err(`gentle-shell: could not start Pi (${piCli}): ${(error as Error).message}`);
    return EXIT.failure;
  }
  return HANDED_TO_PI;
}

/** The parts of a Node process the hand-over sets (a parameter, so a test can hand over a stand-in). */
export interface PiProcessParts {
  env: NodeJS.ProcessEnv;
  argv: string[];
  exitCode?: number | string | null | undefined;
}

/**
 * `host`: the Host whose EPIPE guard comes off this process's streams, and whose HTTP client's idle connections
 * (the startup offer's question to the registry) close, so that none holds Pi's exit back.
 */
export function becomePiProcess(target: PiProcessParts, env: Env, argv: string[], host: Pick<Host, "releaseStreams" | "http">): void {
  for (const key of Object.keys(target.env)) if (env[key] === undefined) delete target.env[key];
  for (const [key, value] of Object.entries(env)) if (value !== undefined) target.env[key] = value;
  target.argv = argv;
  target.exitCode = undefined;
  host.http.closeIdleConnections();
  host.releaseStreams();
  handBackEnvProxy();
}
