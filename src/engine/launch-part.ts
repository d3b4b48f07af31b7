/**
 * The launch part (issue 29): what each version's `.gentle-shell/launch.cjs`
 * runs. It is the engine's launch path alone, a small script, so that starting
 * Pi does not read and compile the whole engine (about 800 KB, the largest
 * part of a launch's cost). The build puts it at the head of engine.cjs and
 * the install cuts it out of the verified engine (src/install/engine-start.ts),
 * so it is never a second asset to sign.
 *
 * It takes a launch to the end only when the launch needs nothing beyond that
 * path. Before anything is changed or printed, a launch that needs more goes
 * to the full engine, which starts it again from the beginning in this same
 * process:
 *   - one of Shell's own commands (upgrade, update, status, setup, memory, self-uninstall);
 *   - a launch that may show the startup update offer (it asks the registry);
 *   - a launch that may run first-use setup or install the companion;
 *   - a launch that would place one of Pi's tools (fd, ripgrep).
 * Everything else (Pi's sessions, -p, --help, --version, Pi's subcommands) is
 * the same code the full engine runs: src/engine/run.ts with part "launch".
 */
import type { Host } from "../io/host";
import type { PrivateInstall } from "../installed/private-install";
import type { PiLaunch } from "../core/pi-launch";
import { piToolsWouldChange } from "../installed/pi-tools-provision";

/** Which of the engine's scripts runs a launch: the launch part, or the whole engine. */
export type EnginePart = "launch" | "full";

/** What runEngine returns when the launch part hands a launch to the full engine. */
export const FULL_ENGINE = "full-engine" as const;
export type FullEngine = typeof FULL_ENGINE;

/** Why this launch needs the full engine, or null when the launch part can take it to the end; reads only. */
export async function fullEngineReason(install: PrivateInstall, host: Host, launch: PiLaunch): Promise<string | null> {
  if (launch.shellCommand) return "a command of Shell's";
  if (launch.offer) return "the startup offer";
  if (launch.firstUse) return "first use";
  if (launch.kind === "final" && (await piToolsWouldChange(install, host, launch.offline))) return "Pi's tools";
  return null;
}
