/**
 * What a command says when it stops, and how it exits (like citty's
 * CLIError(message, code)). A user error is one sentence about what happened
 * and what to do, printed without a stack; anything else that escapes is a
 * bug, printed with its stack so it can be reported.
 */
import { errnoCode } from "./errno";

/** Exit codes every command of gentle-shell-setup and of the engine uses. */
export const EXIT = {
  ok: 0,
  failure: 1,
  usage: 2,
  /** Installed, but the install's last step, gentle-shell setup, failed (the install stands). */
  setupFailed: 3,
  /** Nothing was changed: a dry run, a declined question, or a command blocked before it changed anything (no terminal to ask, nothing to do). */
  unchanged: 4,
  /** Stopped by Ctrl+C at one of our questions (a shell's 128 + SIGINT). */
  interrupted: 130,
  /** An internal error: a bug, with its stack printed. */
  bug: 70,
} as const;

/**
 * An exit code the entry (src/main.ts, src/launch.ts) ends the process with at once, rather than when the event
 * loop empties: nothing left of this process (an idle keep-alive connection to the registry) may hold the exit back.
 * Commands return their exit code; only the entry sets it.
 */
export interface ExitAtOnce {
  readonly exitAtOnce: number;
}

export function exitAtOnce(code: number): ExitAtOnce {
  return { exitAtOnce: code };
}

export class UserError extends Error {
  constructor(
    message: string,
    readonly exitCode: number = EXIT.failure,
  ) {
    super(message);
    this.name = "UserError";
  }
}

/**
 * Errors only a mistake in our code throws: a missing name, or a TypeError of
 * the language itself ("cannot read properties of undefined"). Node's own
 * TypeErrors about input (an invalid URL) carry a code and are about the
 * user's machine, like every other error.
 */
export function isBug(error: unknown): boolean {
  if (error instanceof UserError) return false;
  if (!(error instanceof Error)) return true;
  if (error instanceof ReferenceError) return true;
  return error instanceof TypeError && !errnoCode(error);
}

/** Where a command's lines go: the normal ones and the diagnostics. Each call is one line, without its newline. */
export interface Output {
  out(line: string): void;
  err(line: string): void;
}
