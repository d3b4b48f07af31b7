/**
 * One script, two roles. The single-executable runs it as the installer
 * (`gentle-shell-setup ...`); the launcher `bin/gentle-shell` runs the copy
 * written into the active version as the engine, with ENGINE_FLAG first.
 */
import { ENGINE_FLAG, INTERNAL_FLAG } from "./core/engine-flags";
import { redactText } from "./core/secrets";

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  if (args[0] === INTERNAL_FLAG) {
    const { runInternal } = await import("./engine/internal");
    process.exitCode = await runInternal(args.slice(1));
    return;
  }
  if (args[0] === ENGINE_FLAG) {
    const { runEngine } = await import("./engine/run");
    process.exitCode = await runEngine(args.slice(1));
    return;
  }
  const { runInstallerCli } = await import("./cli/index");
  await runInstallerCli(args);
}

main().catch((error: unknown) => {
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`gentle-shell-setup: ${redactText(message)}\n`);
  process.exitCode = 1;
});
