/**
 * The pinned Pi's own --version, run once before a version becomes current
 * (spec: "gentle-shell upgrade in a bundled install", step 5), so a Pi that
 * does not start is never switched to. Two callers:
 *   - the version's own module, in the one start an upgrade makes of it
 *     (./internal.ts `serve`, asked `pi-version`; an older upgrader asks
 *     `ensure-runtime --pi-version`), at the same time as its Engram and its
 *     launcher's check, which do not depend on it;
 *   - the launcher check (GENTLE_SHELL_VERIFY_VERSION), for an upgrading
 *     engine that did not get the answer from the module (an older one), or
 *     an update.
 */
import type { Env } from "../core/environment";
import { privateChildEnv } from "../core/environment";
import type { Output } from "../core/errors";
import type { PrivateInstall } from "./private-install";

export interface PiVersionAnswer {
  code: number | null;
  reported: string;
  stderr: string;
}

/** The pinned Pi's own --version: its exit code, what it printed, and its standard error. */
export async function piOwnVersion(install: PrivateInstall, env: Env, io: Output): Promise<PiVersionAnswer> {
  const childEnv = privateChildEnv(install, env);
  // --version never probes, starts a server or prints memory notices.
  const { applyEngram, engramLaunchEnvironment } = await import("./engram/launch");
  applyEngram(childEnv, await engramLaunchEnvironment(install.layout, env, "skip"), io);
  childEnv.PI_OFFLINE = "1";
  // The probe is ours, not the user's session: a preload in NODE_OPTIONS must not break it.
  delete childEnv.NODE_OPTIONS;
  const { run } = await import("../io/process");
  const result = await run(install.layout.node, [install.piCli, "--version"], { env: childEnv, timeoutMs: 60_000 });
  return { code: result.code, reported: result.stdout.trim(), stderr: result.stderr.trim() };
}

/** The one sentence for a Pi that did not report its pin, or null when it did. */
export function piVersionProblem(install: Pick<PrivateInstall, "pi" | "id">, answer: PiVersionAnswer): string | null {
  if (answer.code === 0 && answer.reported === install.pi) return null;
  return `the pinned Pi ${install.pi} in versions/${install.id} reported ${JSON.stringify(answer.reported || answer.stderr.slice(0, 200))}`;
}
