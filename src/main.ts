/**
 * One script, two roles. The single-executable runs it as the installer
 * (`gentle-shell-setup ...`); the launcher `bin/gentle-shell` runs the copy
 * written into the active version as the engine, with ENGINE_FLAG first.
 */
import { channel } from "./io/console";
import { ENGINE_FLAG, INTERNAL_FLAG } from "./core/engine-flags";
import { EXIT, isBug, UserError } from "./core/errors";
import { redactText } from "./core/secrets";
import { processHost } from "./io/host";

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

main().catch((error: unknown) => {
  const message = redactText(error instanceof Error ? error.message : String(error));
  if (isBug(error)) {
    // A mistake of ours: the stack helps a report; secrets are masked in it too.
    const stack = error instanceof Error && error.stack ? redactText(error.stack) : message;
    channel.error(`${speaker}: internal error, please report it: ${stack}`);
    process.exitCode = EXIT.bug;
    return;
  }
  channel.error(`${speaker}: ${message}`);
  process.exitCode = error instanceof UserError ? error.exitCode : EXIT.failure;
});
