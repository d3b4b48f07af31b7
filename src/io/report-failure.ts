/**
 * How a command that failed ends, for both of the engine's entries (main.ts
 * and launch.ts): one line naming what happened, secrets masked, on the
 * Host's stderr; a mistake of ours (isBug) also gets its stack, for a report.
 * The exit code follows the error's kind; the entry sets it.
 */
import { EXIT, isBug, type Output, UserError } from "../core/errors";
import { redactText } from "../core/secrets";

export function reportFailure(error: unknown, speaker: string, io: Pick<Output, "err">): number {
  const message = redactText(error instanceof Error ? error.message : String(error));
  if (isBug(error)) {
    const stack = error instanceof Error && error.stack ? redactText(error.stack) : message;
    io.err(`${speaker}: internal error, please report it: ${stack}`);
    return EXIT.bug;
  }
  io.err(`${speaker}: ${message}`);
  return error instanceof UserError ? error.exitCode : EXIT.failure;
}
