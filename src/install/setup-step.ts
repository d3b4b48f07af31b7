/**
 * The setup step of a new install (spec: "Setup environment"): `gentle-shell
 * setup` in setupEnvironment, after the PATH step. It runs through the
 * launcher the install just wrote and checked, so the install proves the very
 * command the user is told to rerun. On Windows Node cannot start the .cmd
 * launcher without a shell, so the version's engine runs with our node, as
 * the .cmd itself does. The terminal is inherited: Gentle AI's output, and
 * any question it asks, reach the user.
 *
 * A failed setup leaves the install as it is: the step fails on its own, and
 * the launcher's first interactive start runs setup once more (first-use
 * setup, src/engine/first-use.ts). Under --json its stdout is our stderr.
 */
import { runAttached } from "../io/process";
import { join } from "../core/native-path";
import { engineArgs } from "../core/engine-flags";
import { setupEnvironment, type Env } from "../core/environment";
import type { Layout } from "../core/layout";
import { ENGINE_PATH } from "./engine-start";
import type { Host } from "../io/host";

/** What the user runs to set up again. */
export const SETUP_COMMAND = "gentle-shell setup";

/** The command the setup step runs, for this platform. */
export function setupCommand(layout: Layout, id: string): { command: string; args: string[] } {
  if (layout.platform === "win32") {
    return { command: layout.node, args: engineArgs(join(layout.versions, id, ENGINE_PATH), ["setup"]) };
  }
  return { command: layout.launcher, args: ["setup"] };
}

/** Run `gentle-shell setup` for version `id` in the setup environment; rejects with one sentence when it fails. */
/** `host`: asked for the child's stdout as it starts (stderr's while stdout is a --json document's). */
export async function runSetupStep(layout: Layout, options: { env: Env; id: string; host: Pick<Host, "stdoutForChild"> }): Promise<string> {
  const { command, args } = setupCommand(layout, options.id);
  const env = setupEnvironment(layout, { env: options.env, id: options.id });
  const ended = await runAttached(command, args, { env, cwd: layout.home, stdout: options.host.stdoutForChild() });
  if ("error" in ended) throw new Error(`${SETUP_COMMAND} could not be started (${ended.error})`);
  if (ended.code !== 0) throw new Error(ended.signal ? `${SETUP_COMMAND} was stopped by ${ended.signal}` : `${SETUP_COMMAND} exited with code ${ended.code}`);
  return `${SETUP_COMMAND} set up Gentle AI for Pi`;
}
