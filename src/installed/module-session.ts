/**
 * A version's own module (spec: "gentle-shell upgrade in a bundled install",
 * step 4), as the upgrade, the update's switch and the rollback ask it. It is
 * started once (`serve`, ./internal.ts): it ensures its runtime and answers
 * `ready` (its Node, its functions, its engine's version and, on POSIX, the
 * launcher it writes), then answers what it is asked on its stdin, one line
 * each, at the same time when asked at once:
 *
 *   engram            its release's pinned Engram core (step 4)
 *   pi-version        its Pi's own --version (step 5)
 *   ensure-launcher   its own launcher, written (step 6, after the switch)
 *
 * It exits when its stdin ends, once what it was asked is done; so it writes
 * no launcher unless asked, and a killed upgrade leaves it nothing to wait
 * for. A module from before `serve` says it does not know the command; it is
 * then asked one command per start, as before (`callModule`).
 */
import type { Env } from "../core/environment";
import { EXIT } from "../core/errors";
import type { Layout } from "../core/layout";
import { INTERNAL_FLAG } from "../core/engine-flags";
import { startLineChild } from "../io/line-child";
import { run, type RunResult } from "../io/process";
import { MODULE_FUNCTIONS } from "./internal";
import type { PiVersionAnswer } from "./pi-version";

const MODULE_TIMEOUT_MS = 20 * 60_000;

export interface LauncherScript {
  script: string;
  name: string;
}

/** What steps 4-6 ask of a version's module, however many starts it takes. */
export interface VersionModule {
  /** gentle-shell-setup's version of that engine (its functions were checked). */
  readonly engineVersion: string;
  /** The Node its runtime runs on. */
  readonly node: string;
  /** The launcher it writes (POSIX; null when it did not say, or on Windows). */
  readonly launcher: LauncherScript | null;
  /** Its release's Engram core, ensured; rejects when that fails. */
  engram(): Promise<void>;
  /** It answers its Pi's own --version (one from before that answer does not: its launcher check runs that Pi). */
  readonly answersPi: boolean;
  /** Its Pi's own --version; null when it does not answer it. */
  piVersion(): Promise<PiVersionAnswer | null>;
  /** Its own launcher written (step 6). */
  ensureLauncher(): Promise<void>;
  /** Done with it: a session's stdin ended and its exit awaited. */
  close(): Promise<void>;
}

export async function callModule(layout: Layout, engine: string, args: string[], env: Env): Promise<Record<string, unknown>> {
  const result = await run(layout.node, [engine, INTERNAL_FLAG, ...args], { env, timeoutMs: MODULE_TIMEOUT_MS });
  const last = result.stdout.trim().split("\n").pop() ?? "";
  if (result.code !== 0) throw new Error(`${args[0]} of that version failed: ${(result.stderr.trim() || last).slice(-400)}`);
  return parsed(last, args[0]!);
}

/** The module must offer every function the upgrade uses (step 4); returns the engine's own version. */
export async function checkModule(layout: Layout, engine: string, env: Env): Promise<string> {
  return moduleVersion(await callModule(layout, engine, ["functions"], env).catch(() => null));
}

/** A module's answer about its functions: the engine's version, or which function is missing. */
function moduleVersion(answer: Record<string, unknown> | null): string {
  const functions = Array.isArray(answer?.functions) ? (answer!.functions as unknown[]) : [];
  for (const name of MODULE_FUNCTIONS) {
    if (!functions.includes(name)) throw new Error(`that version's module has no ${name}; nothing was changed`);
  }
  return typeof answer?.engine === "string" ? answer.engine : "unknown";
}

function parsed(line: string, what: string): Record<string, unknown> {
  try {
    const value = JSON.parse(line) as unknown;
    if (typeof value === "object" && value !== null && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // said below
  }
  throw new Error(`${what} of that version answered ${JSON.stringify(line.slice(0, 200))}`);
}

function failure(what: string, result: RunResult): Error {
  const said = result.stderr.trim().slice(-400);
  return new Error(`${what} of that version failed: ${said || `it exited ${result.code ?? `on ${result.signal ?? "a signal"}`}`}`);
}

export function isLauncherScript(value: unknown): value is LauncherScript {
  const v = value as { script?: unknown; name?: unknown } | null;
  return typeof v === "object" && v !== null && typeof v.script === "string" && typeof v.name === "string";
}

export function isPiVersionAnswer(value: unknown): value is PiVersionAnswer {
  const v = value as Partial<PiVersionAnswer> | null;
  return (
    typeof v === "object" && v !== null && typeof v.reported === "string" && typeof v.stderr === "string" && (typeof v.code === "number" || v.code === null)
  );
}

/**
 * The version's module for steps 4-6. `piVersion`: its Pi's --version will be
 * asked (an older module answers it only in the same start as its runtime).
 */
export async function openVersionModule(
  layout: Layout,
  engine: string,
  env: Env,
  options: { sourceArg: string | undefined; piVersion: boolean },
): Promise<VersionModule> {
  return (
    (await serveModule(layout, engine, env, options.sourceArg)) ?? (await oneStartEach(layout, engine, env, sourceArgs(options.sourceArg), options.piVersion))
  );
}

const sourceArgs = (sourceArg: string | undefined) => (sourceArg ? ["--source", sourceArg] : []);

/** The module started once (`serve`); null when it predates serve. */
export async function serveModule(layout: Layout, engine: string, env: Env, sourceArg: string | undefined): Promise<VersionModule | null> {
  return serve(layout, engine, env, sourceArgs(sourceArg)).catch(async (error: Error) => {
    // A module without the functions the upgrade uses says so as the check of its functions does.
    await checkModule(layout, engine, env);
    throw error;
  });
}

async function serve(layout: Layout, engine: string, env: Env, source: string[]): Promise<VersionModule | null> {
  const child = startLineChild(layout.node, [engine, INTERNAL_FLAG, "serve", ...source], { env, timeoutMs: MODULE_TIMEOUT_MS });
  const first = await child.next();
  if (first === null) {
    const result = await child.exited;
    if (result.code === EXIT.usage && result.stderr.includes("unknown internal command")) return null;
    throw failure("serve", result);
  }
  const ready = parsed(first, "serve");
  const asked = new Map<string, { resolve: (answer: Record<string, unknown>) => void; reject: (error: Error) => void }>();
  let gone: RunResult | null = null;
  let broken: Error | null = null;
  void (async () => {
    for (let line = await child.next(); line !== null; line = await child.next()) {
      const answer = parsed(line, "serve");
      const name = String(answer.reply);
      const waiter = asked.get(name);
      asked.delete(name);
      if (typeof answer.error === "string") waiter?.reject(new Error(`${name} of that version failed: ${answer.error}`));
      else waiter?.resolve(answer);
    }
    gone = await child.exited;
    for (const [name, waiter] of asked) waiter.reject(failure(name, gone));
    asked.clear();
  })().catch((error: Error) => {
    // A line that is not an answer: nothing it says after can be trusted, so every request fails with it.
    broken = error;
    for (const waiter of asked.values()) waiter.reject(error);
    asked.clear();
    child.end();
  });
  // Each request is sent once; asking again (Engram asked while pnpm ran, then by the check) gets the same answer.
  const sent = new Map<string, Promise<Record<string, unknown>>>();
  const ask = (request: string) => {
    const known = sent.get(request);
    if (known) return known;
    const answer = new Promise<Record<string, unknown>>((resolve, reject) => {
      if (broken) return reject(broken);
      if (gone) return reject(failure(request, gone));
      asked.set(request, { resolve, reject });
      child.send(request);
    });
    sent.set(request, answer);
    return answer;
  };
  return {
    engineVersion: moduleVersion(ready),
    node: typeof ready.node === "string" ? ready.node : layout.node,
    launcher: isLauncherScript(ready.launcher) ? ready.launcher : null,
    answersPi: true,
    engram: async () => void (await ask("engram")),
    piVersion: async () => {
      const answer = (await ask("pi-version")).piVersion;
      if (!isPiVersionAnswer(answer)) throw new Error(`pi-version of that version answered ${JSON.stringify(answer)}`);
      return answer;
    },
    ensureLauncher: async () => void (await ask("ensure-launcher")),
    close: async () => {
      child.end();
      await child.exited;
    },
  };
}

/** A module from before `serve`: its runtime, Engram and Pi's --version in one start, then one start per question. */
async function oneStartEach(layout: Layout, engine: string, env: Env, source: string[], piVersion: boolean): Promise<VersionModule> {
  const flags = ["--engram", "--functions", ...(piVersion ? ["--pi-version"] : []), ...(layout.platform === "win32" ? [] : ["--launcher-script"])];
  const runtime = await callModule(layout, engine, ["ensure-runtime", ...flags, ...source], env);
  // An engine older than --functions answers without them: asked once more.
  const engineVersion = "functions" in runtime ? moduleVersion(runtime) : await checkModule(layout, engine, env);
  return {
    engineVersion,
    node: typeof runtime.node === "string" ? runtime.node : layout.node,
    launcher: isLauncherScript(runtime.launcher) ? runtime.launcher : null,
    answersPi: isPiVersionAnswer(runtime.piVersion),
    engram: async () => undefined,
    piVersion: async () => (isPiVersionAnswer(runtime.piVersion) ? runtime.piVersion : null),
    ensureLauncher: async () => void (await callModule(layout, engine, ["ensure-launcher"], env)),
    close: async () => undefined,
  };
}
