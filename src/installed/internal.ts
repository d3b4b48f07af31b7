/**
 * The engine's module interface, across a process boundary. Upgrade and
 * rollback use a version's own engine (spec: "gentle-shell upgrade", step 4:
 * the version's own module) by running it with INTERNAL_FLAG first:
 *
 *   <node> versions/<id>/.gentle-shell/engine.cjs --gentle-shell-engine-internal ensure-runtime [--engram] [--launcher-script] [--functions] [--pi-version] [--source S]
 *   <node> versions/<id>/.gentle-shell/engine.cjs --gentle-shell-engine-internal ensure-launcher
 *   <node> versions/<id>/.gentle-shell/engine.cjs --gentle-shell-engine-internal serve [--source S]
 *
 * Each prints one JSON line, except serve: the one start an upgrade, an
 * update's switch and a rollback make (./module-session.ts). It prints its
 * ready line once its runtime is there, then answers each request line on its
 * stdin (engram, pi-version, ensure-launcher) with one line naming it, the
 * requests it holds at once worked on at once, and exits when stdin ends and
 * every answer is out. Older upgraders still ask the one-line commands. The launcher never passes this flag, so no
 * gentle-shell argument reaches it.
 */
import type { Host } from "../io/host";
import { EXIT } from "../core/errors";
import { readFileSync, realpathSync } from "node:fs";
import { basename, dirname, join } from "../core/native-path";
import { prefixLayout, type Layout } from "../core/layout";
import { hostRuntimeContext } from "../install/runtime/host-context";
import { ensureEngram } from "../install/runtime/engram";
import { ensureVersionRuntime } from "../install/runtime/for-version";
import { cmdLauncher, ensureLauncher, posixLauncher } from "../install/launcher";
import { ENGINE_PATH, ensureEngineFiles } from "../install/engine-start";
import { prefixAsInstalled, resolvePrivateInstall } from "./private-install";
import { piOwnVersion, type PiVersionAnswer } from "./pi-version";
import { SETUP_VERSION } from "../core/installer-version";
import type { Source } from "../core/source";

/** The functions a version's module must offer; the caller checks the list. */
export const MODULE_FUNCTIONS = ["prefixLayout", "ensureRuntime", "ensureLauncher"] as const;

declare const __filename: string;

/** This engine's own layout: versions/<id>/.gentle-shell/engine.cjs → the prefix. */
export function ownLayout(host: Pick<Host, "platform" | "home" | "pins">): Layout {
  const real = realpathSync(__filename);
  const versions = dirname(dirname(dirname(real)));
  if (basename(versions) !== "versions") throw new Error("this engine does not run from a version of a bundled install");
  const { platform, home, pins } = host;
  const prefix = prefixAsInstalled(dirname(versions), home, platform);
  return prefixLayout({ home, platform, pins, prefix, windowsPrefix: prefix });
}

/** This version's Pi's own --version, for a version that is not current yet (as its launcher check resolves it). */
async function ownPiVersion(host: Host): Promise<PiVersionAnswer> {
  const id = basename(dirname(dirname(realpathSync(__filename))));
  const install = await resolvePrivateInstall(__filename, {
    env: { ...host.env, GENTLE_SHELL_VERIFY_VERSION: id },
    platform: host.platform,
    home: host.home,
    pins: host.pins,
  });
  return piOwnVersion(install, host.env, host);
}

/** The launcher this version writes, for upgrade step 5 to run before anything switches. */
function launcherScript(layout: Layout): { script: string; name: string } {
  return {
    script: layout.platform === "win32" ? cmdLauncher(layout) : posixLauncher(layout),
    name: layout.platform === "win32" ? "gentle-shell.cmd" : "gentle-shell",
  };
}

/**
 * This release's pinned Engram core (upgrade and rollback), as its status. A build without its pin has none to
 * publish (memory stays off behind the guard); a download that fails verification stops.
 */
async function engramStatus(host: Host, layout: Layout, source: Source): Promise<string> {
  const outcome = await ensureEngram(hostRuntimeContext(host, layout, source));
  return outcome.available ? outcome.status : `unavailable: ${outcome.reason}`;
}

/** What an internal command works with: this process, this engine's layout, and the words after the command. */
interface InternalContext {
  host: Host;
  layout: Layout;
  rest: string[];
  /** One JSON line on stdout. */
  reply(value: unknown): void;
}

type ServeRequest = (host: Host, layout: Layout, source: Source) => Promise<Record<string, unknown>>;
/** The request lines serve answers, each with what ensure-runtime's flag of the same name answers. */
const SERVE_REQUESTS: ReadonlyMap<string, ServeRequest> = new Map<string, ServeRequest>([
  ["engram", async (host, layout, source) => ({ engram: await engramStatus(host, layout, source) })],
  ["pi-version", async (host) => ({ piVersion: await ownPiVersion(host) })],
  ["ensure-launcher", async (_host, layout) => ({ ...(await ensureLauncher(layout)) })],
]);

async function answerRequest(request: string, host: Host, layout: Layout, source: Source): Promise<Record<string, unknown>> {
  const answer = SERVE_REQUESTS.get(request);
  if (!answer) throw new Error(`unknown request ${JSON.stringify(request.slice(0, 40))}`);
  return answer(host, layout, source);
}

async function serve({ rest, host, layout, reply }: InternalContext): Promise<number> {
  const { node, pnpm, source } = await ownRuntime(rest, host, layout);
  reply({
    ready: true,
    node: layout.node,
    pnpmEntry: layout.pnpmEntry,
    status: { node: node.status, pnpm: pnpm.status },
    functions: MODULE_FUNCTIONS,
    engine: SETUP_VERSION,
    ...(layout.platform === "win32" ? {} : { launcher: launcherScript(layout) }),
  });
  const answers: Promise<void>[] = [];
  for await (const line of host.requests()) {
    const request = line.trim();
    if (!request) continue;
    answers.push(
      answerRequest(request, host, layout, source).then(
        (answer) => reply({ reply: request, ...answer }),
        (error: Error) => reply({ reply: request, error: error.message }),
      ),
    );
  }
  await Promise.all(answers);
  return EXIT.ok;
}

/** This version's start file and launch part (an older installer may have written neither), then its pinned runtime. */
async function ownRuntime(rest: string[], host: Host, layout: Layout) {
  const versionDir = dirname(dirname(realpathSync(__filename)));
  await ensureEngineFiles(versionDir, readFileSync(join(versionDir, ENGINE_PATH)));
  const sourceIndex = rest.indexOf("--source");
  return ensureVersionRuntime(layout, host, sourceIndex >= 0 ? rest[sourceIndex + 1] : undefined);
}

/** ensure-runtime: this version's runtime, and with each flag one more answer (see the top of this file). */
async function ensureRuntime({ rest, host, layout, reply }: InternalContext): Promise<number> {
  const { node, pnpm, source } = await ownRuntime(rest, host, layout);
  // At once, as neither depends on the other (upgrade step 5 at the same time as step 4's Engram):
  //   --engram: this release's pinned Engram core too (engramStatus);
  //   --pi-version: this version's Pi's own --version (./pi-version.ts), now that its Node is there.
  const [engram, piVersion] = await Promise.all([
    rest.includes("--engram") ? engramStatus(host, layout, source) : undefined,
    rest.includes("--pi-version") ? ownPiVersion(host) : undefined,
  ]);
  // --launcher-script and --functions: those answers too, which spares the upgrade more starts of this engine.
  reply({
    node: layout.node,
    pnpmEntry: layout.pnpmEntry,
    status: { node: node.status, pnpm: pnpm.status, ...(engram ? { engram } : {}) },
    ...(rest.includes("--launcher-script") ? { launcher: launcherScript(layout) } : {}),
    ...(rest.includes("--functions") ? { functions: MODULE_FUNCTIONS, engine: SETUP_VERSION } : {}),
    ...(piVersion ? { piVersion } : {}),
  });
  return EXIT.ok;
}

type InternalCommand = (ctx: InternalContext) => Promise<number>;
/** The internal commands, each once (the one table, as the launcher's ../commands/index.ts): its word after INTERNAL_FLAG, and what it does. */
export const INTERNAL_COMMANDS: ReadonlyMap<string, InternalCommand> = new Map<string, InternalCommand>([
  [
    "functions",
    async ({ reply }) => {
      reply({ functions: MODULE_FUNCTIONS, engine: SETUP_VERSION });
      return EXIT.ok;
    },
  ],
  ["ensure-runtime", ensureRuntime],
  ["serve", serve],
  [
    "launcher-script",
    async ({ layout, reply }) => {
      reply(launcherScript(layout));
      return EXIT.ok;
    },
  ],
  [
    "ensure-launcher",
    async ({ layout, reply }) => {
      const { launcher, status } = await ensureLauncher(layout);
      reply({ launcher, status });
      return EXIT.ok;
    },
  ],
]);

/** The one lookup: the command's entry, run with this engine's layout; an unknown word is a usage error. */
export async function runInternal(args: string[], host: Host): Promise<number> {
  const [command, ...rest] = args;
  const run = command === undefined ? undefined : INTERNAL_COMMANDS.get(command);
  if (!run) {
    host.err(`gentle-shell: unknown internal command ${JSON.stringify(command)}`);
    return EXIT.usage;
  }
  return run({ host, layout: ownLayout(host), rest, reply: (value) => host.out(JSON.stringify(value)) });
}
