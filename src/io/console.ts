/**
 * The one output channel (consola, as the design card names it): every line
 * this process writes for the user goes through `channel`. Its reporter keeps
 * our sentences byte for byte (no badges, no colours of its own, no
 * throttling of repeated lines), masks every line with redactText, and sends
 * errors and warnings to stderr and everything else to stdout. Only the
 * single executable's tiny main script (src/sea/main.ts), which must answer
 * --version before any of this loads, writes for itself
 * (test/unit/one-channel.test.ts holds that).
 *
 * --json (issue 14) is a mode of this channel, not a patched stdout: while a
 * command runs for a document, every line of ours goes to stderr, children
 * that would share our stdout get stderr (stdoutForChild), and only the
 * document is written to stdout.
 */
import { createConsola, type LogObject } from "consola/core";
import { redactText } from "../core/secrets";

/**
 * A reader that closed our stdout or stderr (`gentle-shell status | head -1`)
 * is not a failure of ours: the command goes on, and what it writes after that
 * goes nowhere, instead of Node's crash with a stack. Any other stream error
 * is thrown as Node would.
 */
function closedReader(error: NodeJS.ErrnoException): void {
  if (error.code !== "EPIPE" && error.code !== "ERR_STREAM_DESTROYED") throw error;
}
let guarded = false;
function guardStreams(): void {
  if (guarded) return;
  guarded = true;
  process.stdout.on("error", closedReader);
  process.stderr.on("error", closedReader);
}

/** Before Pi owns this process: without our listeners, a closed pipe does to Pi what it does to Pi started directly. */
export function releaseStreams(): void {
  if (!guarded) return;
  guarded = false;
  process.stdout.off("error", closedReader);
  process.stderr.off("error", closedReader);
}

/** consola's levels: error 0 and warn 1 go to stderr; log 2 and above to stdout. */
const STDERR_BELOW = 2;

/** While a command runs for a --json document, stdout is the document's alone. */
let documentMode = false;

export const channel = createConsola({
  level: 5,
  throttle: 0,
  reporters: [
    {
      log(entry: LogObject) {
        const text = entry.args.map((a) => (typeof a === "string" ? a : String(a))).join(" ");
        guardStreams();
        // The stream is looked up at each line: under --json every line goes to stderr.
        (entry.level < STDERR_BELOW || documentMode ? process.stderr : process.stdout).write(`${redactText(text)}\n`);
      },
    },
  ],
});

/** A block that ends with its own newline (a help text), printed as it is. */
export function printBlock(text: string): void {
  channel.log(text.endsWith("\n") ? text.slice(0, -1) : text);
}

/** Resolves once everything written to stdout so far has been handed to the system (before an execve). */
export function stdoutFlushed(): Promise<void> {
  return new Promise((done) => process.stdout.write("", () => done()));
}

export interface DocumentStdout {
  /** Write the document to stdout; resolves once it is handed to the system. */
  write(text: string): Promise<void>;
  /** Lines go to stdout again. */
  restore(): void;
}

/** --json: from now until restore(), stdout carries only what `write` is given. */
export function documentStdout(): DocumentStdout {
  documentMode = true;
  return {
    write: (text) => {
      guardStreams();
      return new Promise((done) => process.stdout.write(text, () => done()));
    },
    restore: () => {
      documentMode = false;
    },
  };
}

/** What a child that shares our terminal gets as its stdout: ours, or stderr's descriptor while stdout is the document's. */
export function stdoutForChild(): "inherit" | 2 {
  return documentMode ? 2 : "inherit";
}
