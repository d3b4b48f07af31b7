/**
 * First-use setup (spec: "Migration from a global install", step 2: "the
 * launcher's automatic setup runs on first use"). When setup has not run in
 * this prefix yet (the install passed --no-setup, its setup step failed, or
 * its plan had none, as a migration's), the first interactive launch runs
 * `gentle-shell setup` once, in the setup environment (setupEnvironment, as
 * the installer's setup step does), before Pi starts. Pi itself still gets
 * the user's environment and the usual pre-Pi Engram decision.
 *
 * Interactive means: a terminal on stdin and stdout, and arguments with which
 * Pi opens its interactive session (PiLaunch.firstUse, ../core/pi-launch.ts). Never for
 * --version, help, Shell or Pi subcommands (those are dispatched before
 * this), print mode, --mode rpc/json, or a launch inside a Gentle Shell
 * session (GENTLE_SHELL_PREFIX is set there: subagents, the agent's shell).
 * An offline launch (PI_OFFLINE, --offline) waits for one that is not:
 * setup may need to download the verified Engram.
 *
 * Once: the marker (src/installed/setup-marker.ts) is claimed before setup
 * starts, and a failure is recorded, not retried. A setup that keeps failing
 * (a mirror that is down, a proxy) would otherwise hold up and nag every
 * start; the one line it prints says how to run it again by hand.
 */
import { setupEnvironment } from "../core/environment";
import type { Host } from "../io/host";
import { tildify } from "../core/layout";
import type { PrivateInstall } from "../installed/private-install";
import { claimFirstUse, recordSetup, setupHasRun, setupMarkerPath } from "../installed/setup-marker";

/** Run setup once, in a launch that may (PiLaunch.firstUse, the caller's), when setup has not run yet; never stops the launch. */
export async function firstUseSetup(install: PrivateInstall, host: Host): Promise<void> {
  const { env } = host;
  const io = host;
  const { layout } = install;
  const failed = (reason: string) =>
    io.err(`gentle-shell: first-use setup did not finish (${reason}), so Pi starts without Gentle AI's setup; run gentle-shell setup to try again.`);
  try {
    if (await setupHasRun(layout)) return;
    if (!(await claimFirstUse(layout, install.id))) return;
  } catch (error) {
    failed(`${tildify(setupMarkerPath(layout), layout.home)} could not be written: ${(error as Error).message}`);
    return;
  }
  io.err("gentle-shell: setting up Gentle AI for Pi once, before Pi starts (gentle-shell setup)...");
  const { setupRun } = await import("../commands/setup");
  let reason: string | undefined;
  try {
    const result = await setupRun(
      install,
      [],
      { env: setupEnvironment(layout, { env, id: install.id }), out: io.out, err: io.err, http: host.http, target: host.target },
      { firstUse: true },
    );
    if (result.code !== 0) reason = result.reason ?? `it exited with code ${result.code}`;
  } catch (error) {
    reason = (error as Error).message;
  }
  if (reason === undefined) return;
  failed(reason);
  await recordSetup(layout, { status: "failed", by: "first-use", version: install.id, reason }).catch(() => undefined);
}
