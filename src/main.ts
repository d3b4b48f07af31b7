/**
 * One script, two roles. The single-executable runs it as the installer
 * (`gentle-shell-setup ...`); the launcher `bin/gentle-shell` runs the copy
 * written into the active version as the engine, with ENGINE_FLAG first.
 */
import { ENGINE_FLAG, INTERNAL_FLAG } from "./core/engine-flags";
import { processHost } from "./io/host";
import { reportFailure } from "./io/report-failure";

const args = process.argv.slice(2);
/** The launcher's engine speaks as gentle-shell; the single executable as gentle-shell-setup. */
const speaker = args[0] === ENGINE_FLAG || args[0] === INTERNAL_FLAG ? "gentle-shell" : "gentle-shell-setup";

async function main(): Promise<void> {
  // The one Host, passed down to every command (src/io/host.ts).
  const host = processHost();
  if (args[0] === INTERNAL_FLAG) {
    const { runInternal } = await import("./engine/internal");
    process.exitCode = await runInternal(args.slice(1), host);
    return;
  }
  if (args[0] === ENGINE_FLAG) {
    const { runEngine } = await import("./engine/run");
    const code = await runEngine(args.slice(1), host);
    // Once Pi runs in this process, the exit code is Pi's.
    if (typeof code === "number") process.exitCode = code;
    return;
  }
  const { runInstallerCli } = await import("./cli/index");
  await runInstallerCli(args, host);
}

main().catch((error: unknown) => reportFailure(error, speaker));
