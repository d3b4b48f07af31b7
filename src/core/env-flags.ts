/**
 * The truth of an environment flag of Pi's, read exactly as the pinned Pi
 * reads it, so that the launcher and Pi never disagree on it (issue 40).
 * Pi 1.6.0 has one rule for every such flag: isTruthyEnvFlag in dist/main.js
 * (PI_OFFLINE, PI_STARTUP_BENCHMARK), and the same body in
 * isOfflineModeEnabled of dist/core/package-manager.js and
 * dist/utils/tools-manager.js; its --help says "PI_OFFLINE ... when set to
 * 1/true/yes". test/integration/pi-env-flags-real.test.ts checks this rule
 * against those functions of the real Pi. Pure.
 */
import type { Env } from "./environment";

/** "1", or "true" or "yes" in any case; anything else ("", "0", "on", " 1", "true ") is off. Pi 1.6.0's isTruthyEnvFlag. */
export function piEnvFlag(value: string | undefined): boolean {
  if (!value) return false;
  const lower = value.toLowerCase();
  return value === "1" || lower === "true" || lower === "yes";
}

/** PI_OFFLINE as Pi reads it: Pi's offline mode by the environment alone (Pi's --offline flag is ./pi-launch.ts's). */
export function piOfflineByEnv(env: Readonly<Env>): boolean {
  return piEnvFlag(env.PI_OFFLINE);
}
