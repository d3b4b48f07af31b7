/**
 * How a command that failed ends, for both of the engine's entries (main.ts
 * and launch.ts): one line naming what happened, secrets masked; a mistake of
 * ours (isBug) also gets its stack, for a report; the exit code follows the
 * error's kind.
 */
import { EXIT, isBug, UserError } from "../core/errors";
import { redactText } from "../core/secrets";
import { channel } from "./console";

export function reportFailure(error: unknown, speaker: string): void {
  const message = redactText(error instanceof Error ? error.message : String(error));
  if (isBug(error)) {
    const stack = error instanceof Error && error.stack ? redactText(error.stack) : message;
    channel.error(`${speaker}: internal error, please report it: ${stack}`);
    process.exitCode = EXIT.bug;
    return;
  }
  channel.error(`${speaker}: ${message}`);
  process.exitCode = error instanceof UserError ? error.exitCode : EXIT.failure;
}
