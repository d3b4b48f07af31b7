/**
 * The real StatusProbes (./gather.ts): the launcher's `--version` in the
 * environment the install's own check uses, the PATH receipt read back
 * without following links, and the memory decision as setup classifies it:
 * the two read-only GETs on the loopback endpoint and the store's header,
 * never starting a server.
 */
import type { Env } from "../../core/environment";
import { launcherCheckEnvironment } from "../../core/environment";
import type { Layout } from "../../core/layout";
import { runLauncher } from "../../io/process";
import { readPathReceipt } from "../../path/receipt-file";
import { engramLaunchEnvironment } from "../../installed/engram/launch";
import type { StatusProbes } from "./gather";

export function hostStatusProbes(layout: Layout, env: Env): StatusProbes {
  return {
    runLauncher: () => runLauncher(layout, ["--version"], { env: launcherCheckEnvironment(layout, { env }), timeoutMs: 60_000 }),
    readReceipt: () => readPathReceipt(layout, env),
    probeMemory: async () => (await engramLaunchEnvironment(layout, env, "classify")).decision,
  };
}
