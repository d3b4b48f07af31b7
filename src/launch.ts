/**
 * The launch part's entry (./engine/launch-part.ts): each version's
 * `.gentle-shell/launch.cjs`, which the version's start file runs when it is
 * there. It runs the launcher's words through the engine's own launch path,
 * and hands anything else (an internal call, a launch that needs more) to the
 * full engine beside it, engine.cjs, in this same process with the same
 * arguments: nothing was printed or changed before that.
 *
 * The build wraps this script so that it runs only as launch.cjs: as a part
 * of engine.cjs, or of the single executable, it does nothing
 * (build/build.mjs, src/install/engine-start.ts).
 */
import { join } from "./core/native-path";
import { ENGINE_FLAG } from "./core/engine-flags";
import { EXIT, UserError } from "./core/errors";
import { useEnvProxy } from "./io/env-proxy";
import { type Host, processHost } from "./io/host";
import { reportFailure } from "./io/report-failure";
import { FULL_ENGINE } from "./engine/launch-part";
import { runEngine } from "./engine/run";

declare const __dirname: string;
declare const require: (id: string) => unknown;

const args = process.argv.slice(2);
// This process, built once (src/io/host.ts) when the launch part runs the launch itself; a call it hands to the full
// engine never builds one here, so the full engine's is the process's only Host.
let host: Host | null = null;

/** The whole engine, run as if the launcher had started it. */
function fullEngine(): void {
  require(join(__dirname, "engine.cjs"));
}

async function launch(): Promise<void> {
  if (args[0] !== ENGINE_FLAG) return fullEngine();
  host = processHost(undefined, undefined, "engine");
  // Node's proxy support, before any request (./io/env-proxy.ts; the full engine finds it done).
  const proxyRefused = useEnvProxy();
  if (proxyRefused !== null) throw new UserError(proxyRefused, EXIT.usage);
  const code = await runEngine(args.slice(1), host, "launch");
  // Nothing was printed or changed: the full engine starts over, with a Host of its own.
  if (code === FULL_ENGINE) {
    host = null;
    return fullEngine();
  }
  // The startup offer's Ctrl+C or its relaunch's code: at once, whatever of this process is still open.
  if (typeof code === "object") process.exit(code.exitAtOnce);
  // Once Pi runs in this process, the exit code is Pi's.
  if (typeof code === "number") process.exitCode = code;
}

launch().catch((error: unknown) => {
  process.exitCode = reportFailure(error, "gentle-shell", host ?? processHost(undefined, undefined, "engine"));
});
