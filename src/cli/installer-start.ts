/**
 * What install and migrate do first, in this order: the knobs settled (flags over GENTLE_SHELL_* variables), the
 * Host in the mode they ask, a prefix no install can live in refused, and a source that is gone said at once.
 */
import { checkSourceReachable } from "../install/source-reachable";
import { hostOf } from "./command-host";
import type { Layout } from "../core/layout";
import type { Host } from "../io/host";
import { checkPrefix, defaultLayout } from "./install-run";
import { type KnobFlags, type Settled, settle } from "./knobs";

export async function installerStart(args: KnobFlags, rawArgs: readonly string[], data: unknown): Promise<{ host: Host; layout: Layout; knobs: Settled }> {
  const knobs = settle(args, rawArgs, hostOf(data).env);
  const host = hostOf(data).withMode({ quiet: knobs.quiet });
  const layout = defaultLayout(host);
  checkPrefix(layout);
  await checkSourceReachable(knobs.source, { from: knobs.sourceFrom }, host);
  return { host, layout, knobs };
}
