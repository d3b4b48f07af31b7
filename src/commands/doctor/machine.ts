/**
 * doctor's machine checks (issue 41): free space where the prefix lives, and
 * whether the install's own source (a mirror or an offline folder it
 * remembers) still answers, through the user's proxy and trust settings,
 * unless Pi is told to be offline (PI_OFFLINE). With the official source,
 * the npm registry and the release home are asked instead (./reach.ts).
 */
import { tildify, tildifyText, type Layout } from "../../core/layout";
import { piOfflineByEnv } from "../../core/env-flags";
import { redactUrl } from "../../core/secrets";
import { showBytes } from "../../core/space-need";
import { freeSpace } from "../../io/disk";
import { rememberedSource } from "../../install/remembered-source";
import { checkSourceReachable } from "../../install/source-reachable";
import type { DoctorContext } from "./context";
import type { Check } from "./plan";
import { officialReachChecks } from "./reach";

/** Below this, an upgrade or an update would not fit (a release's packages and a runtime). */
export const LOW_SPACE = 512 * 1024 * 1024;

async function spaceCheck(layout: Layout): Promise<Check> {
  const free = await freeSpace(layout.prefix);
  if (free === null) return { group: "machine", id: "machine.space", status: "warn", line: "free space could not be read" };
  const where = tildify(layout.prefix, layout.home);
  if (free < LOW_SPACE)
    return {
      group: "machine",
      id: "machine.space",
      status: "warn",
      line: `only ${showBytes(free)} free for ${where}: an upgrade or update may not fit`,
      repair: { kind: "command", sentence: "free some space on that disk" },
    };
  return { group: "machine", id: "machine.space", status: "ok", line: `${showBytes(free)} free for ${where}` };
}

async function sourceChecks(ctx: DoctorContext, shell: string | null): Promise<Check[]> {
  const value = await rememberedSource(ctx.layout).catch(() => undefined);
  if (!value || value === "official") return officialReachChecks(ctx, shell);
  return [await sourceCheck(ctx, value)];
}

async function sourceCheck(ctx: DoctorContext, value: string): Promise<Check> {
  const shown = redactUrl(tildify(value, ctx.layout.home));
  if (piOfflineByEnv(ctx.env)) return { group: "machine", id: "machine.source", status: "ok", line: `the install source ${shown} was not asked (offline)` };
  try {
    await checkSourceReachable(value, { from: "install source", timeoutMs: 10_000 }, ctx);
    return { group: "machine", id: "machine.source", status: "ok", line: `the install source ${shown} answers` };
  } catch (error) {
    const why = tildifyText((error as Error).message, ctx.layout.home).replace(/; nothing was changed$/, "");
    return {
      group: "machine",
      id: "machine.source",
      status: "warn",
      line: redactUrl(why),
      repair: { kind: "command", sentence: "an upgrade or update needs it: check the network or proxy, or name another with --source" },
    };
  }
}

/** `shell`: the active gentle-pi version, whose signed manifest the release home is asked for. */
export async function machineChecks(ctx: DoctorContext, shell: string | null = null): Promise<Check[]> {
  return [await spaceCheck(ctx.layout), ...(await sourceChecks(ctx, shell))];
}
