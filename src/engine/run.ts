/**
 * The engine: what bin/gentle-shell runs, from the active version (spec:
 * "Launcher in a bundled install"). It resolves the bundled install, answers
 * --version, then looks the words up once in the command table
 * (../commands/index.ts: upgrade, update, status, setup, memory migrate,
 * self-uninstall); then the startup update offer. Anything else gets the final pre-Pi Engram decision
 * ("Engram startup safety"), Pi's npmCommand, the gentle-engram companion
 * (./companion/) and Pi's own tools (../installed/pi-tools-provision.ts), then starts the
 * exact pinned Pi, in this process when it can (./pi-handover.ts), with the
 * version's gentle-pi loaded through Pi's --extension (a Pi subcommand as is);
 * Pi's main help is preceded by Gentle Shell's own commands (./help.ts).
 */
import { EXIT, type ExitAtOnce, type Output } from "../core/errors";
import type { Env } from "../core/environment";
import type { Host } from "../io/host";
import { privateChildEnv } from "../core/environment";
import { PrivateInstallError, NoActiveVersionError, resolvePrivateInstall, type PrivateInstall } from "../installed/private-install";
import { NO_ACTIVE_VERSION, NO_ACTIVE_VERSION_HINT } from "../install/launcher";
import { classifyLaunch, piArguments } from "../core/pi-launch";
import { shellHelpLines } from "./help";
import type { HandedToPi } from "./pi-handover";
import { stepMark } from "../io/step-times";
import { piOwnVersion, piVersionProblem } from "../installed/pi-version";
import { PI_CHECKED_VARIABLE } from "../core/engine-flags";
import { FULL_ENGINE, fullEngineReason, type EnginePart, type FullEngine } from "./launch-part";

declare const __filename: string;

/**
 * A launch of gentle-shell: `args` are the words after it, `host` this process (src/io/host.ts).
 * `part` is the script running it: the launch part hands what it cannot finish to the full engine
 * (FULL_ENGINE) before it changes anything (./launch-part.ts). The exit code is returned, for the
 * entry to set (ExitAtOnce: to end the process with at once, the startup offer's).
 */
export async function runEngine(args: string[], host: Host, part: EnginePart = "full"): Promise<number | HandedToPi | FullEngine | ExitAtOnce> {
  const { env } = host;
  const io: Output & Pick<Host, "http" | "target"> = host;
  stepMark("launch: engine loaded", env);
  // The launch's words and environment, read once for everything below (../core/pi-launch.ts).
  const launch = classifyLaunch(args, env, host.terminal);
  let install: PrivateInstall;
  try {
    install = await resolvePrivateInstall(__filename, host);
  } catch (error) {
    if (error instanceof NoActiveVersionError) {
      // current names a folder that is not a finished version: the launcher's own lines, as when current names nothing.
      io.err(NO_ACTIVE_VERSION);
      io.err(NO_ACTIVE_VERSION_HINT);
      return EXIT.failure;
    }
    if (error instanceof PrivateInstallError) {
      // A self-uninstall killed partway can leave an install its own engine no longer accepts: the setup binary finishes it.
      const finish = launch.shellCommand?.name === "self-uninstall" ? "; finish removing Gentle Shell with gentle-shell-setup uninstall" : "";
      io.err(`gentle-shell: ${finish ? error.message.replace(/\.$/, "") : error.message}${finish}`);
      return EXIT.failure;
    }
    throw error;
  }
  stepMark("launch: install resolved", env);
  if (launch.shellVersion) return printVersion(install, env, io);
  if (install.verifyOnly) {
    // GENTLE_SHELL_VERIFY_VERSION is honoured for --version only.
    io.err(`gentle-shell: versions/${install.id} is not the active version`);
    return EXIT.failure;
  }
  if (part === "launch") {
    const reason = await fullEngineReason(install, host, launch);
    if (reason !== null) {
      stepMark(`launch: full engine (${reason})`, env);
      return FULL_ENGINE;
    }
  }
  // Shell's own commands, each registered once (../commands/index.ts); null goes on to Pi.
  const { findEngineCommand, runEngineCommand } = await import("../commands/index");
  const own = findEngineCommand(launch);
  if (own) {
    const code = await runEngineCommand(own, { install, host });
    if (code !== null) return code;
  }
  stepMark("launch: own commands", env);
  // The update policy for Pi's install and update (./pi-package-gate.ts): off stops them before Pi starts.
  if (launch.packageCommand !== null) {
    const refused = await (await import("./pi-package-gate")).piPackageGate(install, launch.packageCommand, host);
    if (refused !== null) return refused;
  }
  if (launch.offer) {
    const { startupOffer } = await import("./startup-offer");
    const offered = await startupOffer(install, host, launch.args);
    if (offered !== null) return offered;
  }
  stepMark("launch: offer", env);
  // Setup once, on the first interactive launch, when it has not run (src/engine/first-use.ts).
  if (launch.firstUse) await (await import("./first-use")).firstUseSetup(install, host);
  stepMark("launch: first use", env);
  const childEnv = privateChildEnv(install, env);
  // Three independent steps at once, each on its own files:
  //   - Engram startup safety: the final pre-Pi decision (the only one that may start the shared server);
  //   - Pi's npmCommand, through our npm shim;
  //   - Pi's own tools: pinned, verified fd and rg in our home's bin folder, where Pi looks before PATH;
  //     only for a Pi session (help, --version and Pi's subcommands never download anything); the
  //     launch part comes here only when they are in place already.
  const { applyEngram, engramLaunchEnvironment } = await import("../installed/engram/launch");
  const [engram, npmReady] = await Promise.all([
    engramLaunchEnvironment(install.layout, env, launch.kind),
    piNpmCommandReady(install, io),
    launch.kind === "final" && part === "full"
      ? import("../installed/pi-tools-provision").then((m) => m.provisionPiTools(install, env, launch.offline, io, { launch: true }))
      : undefined,
  ]);
  applyEngram(childEnv, engram, io);
  stepMark("launch: engram, npm command and pi tools", env);
  // The gentle-engram companion, in the launches first-use setup runs in (src/engine/companion/ensure.ts).
  if (launch.firstUse) {
    const { ensureCompanion } = await import("./companion/ensure");
    const { companionIo } = await import("./companion/pi-io");
    await ensureCompanion(companionIo(install, childEnv, npmReady), io);
  }
  // Help: Gentle Shell's own commands, then Pi's help, flushed first in case a fresh Node replaces this process.
  if (launch.printsMainHelp) {
    io.out(shellHelpLines().join("\n"));
    await host.stdoutFlushed();
  }
  // Pi in this process when it can be, else in a fresh Node (./pi-handover.ts, ../core/pi-start.ts).
  const { startPi } = await import("./pi-handover");
  const request = {
    node: install.layout.node,
    piCli: install.piCli,
    args: piArguments(install, launch),
    env: childEnv,
    platform: host.platform,
    startEnv: env,
  };
  stepMark("launch: start pi", env);
  return startPi(request, host);
}

/** Our npm shim and Pi's npmCommand pointing at it; false (with one line said) when Pi's setting could not be made. */
async function piNpmCommandReady(install: PrivateInstall, io: Output): Promise<boolean> {
  const { ensureNpmShim, npmShimInPlace } = await import("../install/runtime/npm-shim");
  const { ensurePiNpmCommand, piNpmCommandInPlace } = await import("../installed/pi-settings");
  // Most launches find both as they must be: a few sync reads say so, without the thread pool's round trips.
  if (npmShimInPlace(install.layout) && piNpmCommandInPlace(install.layout)) return true;
  try {
    await ensureNpmShim(install.layout);
    const npmCommand = await ensurePiNpmCommand(install.layout);
    if (typeof npmCommand !== "object") return true;
    io.err(`gentle-shell: Pi's npmCommand was not set: ${npmCommand.warning}.`);
  } catch (error) {
    io.err(`gentle-shell: Pi's npmCommand was not set: ${(error as Error).message}.`);
  }
  return false;
}

/**
 * gentle-shell --version: resolvePrivateInstall already read the installed
 * Pi's package.json and refused one whose version is not the pin, so no Pi is
 * started. A launcher check that names this version
 * (GENTLE_SHELL_VERIFY_VERSION: an upgrade's or update's step 5, before it
 * becomes current) also runs that Pi's own --version once (../installed/pi-version.ts),
 * unless the upgrade already had this version's module run it.
 */
async function printVersion(install: PrivateInstall, env: Env, io: Output): Promise<number> {
  if (env.GENTLE_SHELL_VERIFY_VERSION === install.id && env[PI_CHECKED_VARIABLE] !== install.id) {
    const problem = piVersionProblem(install, await piOwnVersion(install, env, io));
    if (problem) {
      // A verification reports the fact only: the upgrade asking is what would act on it.
      io.err(`gentle-shell: ${problem}.`);
      return EXIT.failure;
    }
  }
  io.out(`gentle-shell ${install.shell}`);
  io.out(`pi ${install.pi}`);
  return EXIT.ok;
}
