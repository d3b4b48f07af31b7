/**
 * What install and migrate do first, in this order: the knobs settled (flags over GENTLE_SHELL_* variables), the
 * Host in the mode they ask, a prefix no install can live in refused, and a source that is gone said at once.
 */
import { checkSourceReachable } from "../install/source-check";
import { hostOf } from "./command-host";
import { checkPrefix, type InstallContext, installContext } from "./install-run";
import { type KnobFlags, type Settled, settle } from "./knobs";

export async function installerStart(args: KnobFlags, rawArgs: readonly string[], data: unknown): Promise<{ host: InstallContext; knobs: Settled }> {
  const knobs = settle(args, rawArgs, hostOf(data).env);
  const host = installContext(hostOf(data).withMode({ quiet: knobs.quiet }));
  checkPrefix(host);
  await checkSourceReachable(knobs.source, { from: knobs.sourceFrom }, host);
  return { host, knobs };
}
