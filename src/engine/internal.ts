/**
 * The engine's module interface, across a process boundary. Upgrade and
 * rollback use a version's own engine (spec: "gentle-shell upgrade", step 4:
 * the version's own module) by running it with INTERNAL_FLAG first:
 *
 *   <node> versions/<id>/.gentle-shell/engine.cjs --gentle-shell-engine-internal ensure-runtime [--engram] [--launcher-script] [--source S]
 *   <node> versions/<id>/.gentle-shell/engine.cjs --gentle-shell-engine-internal ensure-launcher
 *
 * Each prints one JSON line. The launcher never passes this flag, so no
 * gentle-shell argument reaches it.
 */
import type { Host } from "../io/host";
import { EXIT } from "../core/errors";
import { realpathSync } from "node:fs";
import { basename, dirname } from "pathe";
import { prefixLayout, type Layout } from "../core/layout";
import { hostTarget } from "../core/machine";
import { buildPins } from "../pins/index";
import { ensureEngram } from "../install/runtime/engram";
import { ensureVersionRuntime } from "../install/runtime/for-version";
import { cmdLauncher, ensureLauncher, posixLauncher } from "../install/launcher";
import { prefixAsInstalled } from "./bundled";
import { SETUP_VERSION } from "../setup-version";

/** The functions a version's module must offer; the caller checks the list. */
export const MODULE_FUNCTIONS = ["prefixLayout", "ensureRuntime", "ensureLauncher"] as const;

declare const __filename: string;

/** This engine's own layout: versions/<id>/.gentle-shell/engine.cjs → the prefix. */
export function ownLayout(host: Pick<Host, "platform" | "home">): Layout {
  const real = realpathSync(__filename);
  const versions = dirname(dirname(dirname(real)));
  if (basename(versions) !== "versions") throw new Error("this engine does not run from a version of a bundled install");
  const { platform, home } = host;
  const prefix = prefixAsInstalled(dirname(versions), home, platform);
  return prefixLayout({ home, platform, pins: buildPins(), prefix, windowsPrefix: prefix });
}

/** The launcher this version writes, for upgrade step 5 to run before anything switches. */
function launcherScript(layout: Layout): { script: string; name: string } {
  return {
    script: layout.platform === "win32" ? cmdLauncher(layout) : posixLauncher(layout),
    name: layout.platform === "win32" ? "gentle-shell.cmd" : "gentle-shell",
  };
}

export async function runInternal(args: string[], host: Host): Promise<number> {
  const { env } = host;
  const [command, ...rest] = args;
  const layout = ownLayout(host);
  const reply = (value: unknown) => host.out(JSON.stringify(value));
  if (command === "functions") {
    reply({ functions: MODULE_FUNCTIONS, engine: SETUP_VERSION });
    return EXIT.ok;
  }
  if (command === "ensure-runtime") {
    const sourceIndex = rest.indexOf("--source");
    const { node, pnpm, source } = await ensureVersionRuntime(layout, env, sourceIndex >= 0 ? rest[sourceIndex + 1] : undefined);
    const ctx = { layout, pins: buildPins(), source, target: hostTarget(), env };
    // --engram (upgrade and rollback): this release's pinned Engram core too. A build without its pin
    // has none to publish (memory stays off behind the guard); a download that fails verification stops.
    let engram: string | undefined;
    if (rest.includes("--engram")) {
      const outcome = await ensureEngram(ctx);
      engram = outcome.available ? outcome.status : `unavailable: ${outcome.reason}`;
    }
    // --launcher-script: the launcher-script answer too, which spares the upgrade one more start of this engine.
    const launcher = rest.includes("--launcher-script") ? { launcher: launcherScript(layout) } : {};
    reply({ node: layout.node, pnpmEntry: layout.pnpmEntry, status: { node: node.status, pnpm: pnpm.status, ...(engram ? { engram } : {}) }, ...launcher });
    return EXIT.ok;
  }
  if (command === "launcher-script") {
    reply(launcherScript(layout));
    return EXIT.ok;
  }
  if (command === "ensure-launcher") {
    const { launcher, status } = await ensureLauncher(layout);
    reply({ launcher, status });
    return EXIT.ok;
  }
  host.err(`gentle-shell: unknown internal command ${JSON.stringify(command)}`);
  return EXIT.usage;
}
