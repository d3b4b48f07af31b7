/**
 * One script, two roles. The single-executable runs it as the installer
 * (`gentle-shell-setup ...`); the launcher `bin/gentle-shell` runs the copy
 * written into the active version as the engine, with ENGINE_FLAG first.
 * Every command returns its exit code; only this entry (and ./launch.ts)
 * sets the process's.
 */
import { ENGINE_FLAG, INTERNAL_FLAG } from "./core/engine-flags";
import { EXIT, UserError } from "./core/errors";
import { useEnvProxy } from "./io/env-proxy";
import { processHost } from "./io/host";
import { reportFailure } from "./io/report-failure";

const args = process.argv.slice(2);
/** The launcher's engine speaks as gentle-shell; the single executable as gentle-shell-setup. */
const speaker = args[0] === ENGINE_FLAG || args[0] === INTERNAL_FLAG ? "gentle-shell" : "gentle-shell-setup";
/** Node's proxy support, before any request (./io/env-proxy.ts); a variable Node cannot use is refused below. */
const proxyRefused = useEnvProxy();
// The one Host, passed down to every command (src/io/host.ts); a failure is reported on it too.
const host = processHost(undefined, undefined, speaker === "gentle-shell" ? "engine" : "installer");

async function main(): Promise<void> {
  if (proxyRefused !== null && (args[0] === INTERNAL_FLAG || args[0] === ENGINE_FLAG)) throw new UserError(proxyRefused, EXIT.usage);
  if (args[0] === INTERNAL_FLAG) {
    const { runInternal } = await import("./installed/internal");
    process.exitCode = await runInternal(args.slice(1), host);
    return;
  }
  if (args[0] === ENGINE_FLAG) {
    const { runEngine } = await import("./engine/run");
    const code = await runEngine(args.slice(1), host);
    // The startup offer's Ctrl+C or its relaunch's code: at once, whatever of this process is still open.
    if (typeof code === "object") process.exit(code.exitAtOnce);
    // Once Pi runs in this process, the exit code is Pi's.
    if (typeof code === "number") process.exitCode = code;
    return;
  }
  const { runInstallerCli } = await import("./cli/index");
  // The installer refuses it as a command's usage error, so that --json still writes its document.
  process.exitCode = await runInstallerCli(args, host, proxyRefused);
}

main().catch((error: unknown) => {
  process.exitCode = reportFailure(error, speaker, host);
});
