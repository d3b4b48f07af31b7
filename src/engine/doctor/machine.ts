/**
 * doctor's machine checks (issue 41): free space where the prefix lives, and
 * whether the install's own source (a mirror or an offline folder it
 * remembers) still answers, through the user's proxy and trust settings,
 * unless Pi is told to be offline (PI_OFFLINE). The official source is not
 * asked: an upgrade names any failure there itself.
 */
import { tildify, tildifyText, type Layout } from "../../core/layout";
import { piOfflineByEnv } from "../../core/env-flags";
import { redactUrl } from "../../core/secrets";
import { showBytes } from "../../core/space-need";
import { freeSpace } from "../../io/disk";
import { rememberedSource } from "../../install/install-source";
import { checkSourceReachable } from "../../install/source-check";
import type { DoctorContext } from "./context";
import type { Check } from "./plan";

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

async function sourceCheck(ctx: DoctorContext): Promise<Check | null> {
  const value = await rememberedSource(ctx.layout).catch(() => undefined);
  if (!value || value === "official") return null;
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

export async function machineChecks(ctx: DoctorContext): Promise<Check[]> {
  const source = await sourceCheck(ctx);
  return [await spaceCheck(ctx.layout), ...(source ? [source] : [])];
}
