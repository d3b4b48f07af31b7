/**
 * The one output channel (consola, as the design card names it), one per
 * Host (./host.ts): every line the Host writes for the user goes through its
 * channel. Its reporter keeps our sentences byte for byte (no badges, no
 * colours of its own, no throttling of repeated lines), masks every line with
 * redactText, and sends errors and warnings to stderr and everything else to
 * stdout. What is not a line (a progress bar, the offer's panel) is written
 * through the channel's `raw` writer: masked and guarded the same way.
 *
 * The channel is given its streams; it names none of this process's itself.
 * Only the Host's file and the single executable's tiny main script
 * (src/sea/main.ts), which must answer --version before any of this loads,
 * touch the process's streams (test/unit/one-channel.test.ts holds that).
 *
 * --json (issue 14) is a mode of the channel, not a patched stdout: while a
 * command runs for a document, every line of ours goes to stderr, children
 * that would share our stdout get stderr (stdoutForChild), and only the
 * document is written to stdout. The mode and the EPIPE guard are the
 * channel's own: nothing of either is kept at module level.
 */
import { createConsola, type LogObject } from "consola/core";
import { redactText } from "../core/secrets";

/** The two streams a channel writes to: this process's (./host.ts), or a test's. */
export interface OutputStreams {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
}

/** Text that is not a line (a bar's redraw, a panel with its escapes), written as it is but masked. */
export type RawWriter = (text: string, done?: () => void) => boolean;

export interface DocumentStdout {
  /** Write the document to stdout; resolves once it is handed to the system. */
  write(text: string): Promise<void>;
  /** Lines go to stdout again. */
  restore(): void;
}

export interface Channel {
  /** One line (or a block without its last newline) on stdout, on stderr while stdout is the document's. */
  log(line: string): void;
  /** One line on stderr. */
  error(line: string): void;
  /** Masked text on one stream, under the same guard as the lines. */
  raw(on: "stdout" | "stderr"): RawWriter;
  /** --json: from now until restore(), stdout carries only what `write` is given. */
  documentStdout(): DocumentStdout;
  /** What a child that shares our terminal gets as its stdout: ours, or stderr's descriptor while stdout is the document's. */
  stdoutForChild(): "inherit" | 2;
  /** Resolves once everything written to stdout so far has been handed to the system (before an execve). */
  stdoutFlushed(): Promise<void>;
  /** Before Pi owns this process: without our listeners, a closed pipe does to Pi what it does to Pi started directly. */
  releaseStreams(): void;
}

/**
 * A reader that closed our stdout or stderr (`gentle-shell status | head -1`)
 * is not a failure of ours: the command goes on, and what it writes after that
 * goes nowhere, instead of Node's crash with a stack. Any other stream error
 * is thrown as Node would.
 */
function closedReader(error: NodeJS.ErrnoException): void {
  if (error.code !== "EPIPE" && error.code !== "ERR_STREAM_DESTROYED") throw error;
}

/** consola's levels: error 0 and warn 1 go to stderr; log 2 and above to stdout. */
const STDERR_BELOW = 2;

export function outputChannel(streams: OutputStreams): Channel {
  // This channel's own listener, so that releasing it removes exactly what it added.
  const onError = (error: NodeJS.ErrnoException) => closedReader(error);
  let guarded = false;
  /** While a command runs for a --json document, stdout is the document's alone. */
  let documentMode = false;
  const guard = () => {
    if (guarded) return;
    guarded = true;
    streams.stdout.on("error", onError);
    streams.stderr.on("error", onError);
  };
  const lines = createConsola({
    level: 5,
    throttle: 0,
    reporters: [
      {
        log(entry: LogObject) {
          const text = entry.args.map((a) => (typeof a === "string" ? a : String(a))).join(" ");
          guard();
          // The stream is looked up at each line: under --json every line goes to stderr.
          (entry.level < STDERR_BELOW || documentMode ? streams.stderr : streams.stdout).write(`${redactText(text)}\n`);
        },
      },
    ],
  });
  return {
    log: (line) => lines.log(line),
    error: (line) => lines.error(line),
    raw: (on) => (text, done) => {
      guard();
      return streams[on].write(redactText(text), done);
    },
    documentStdout: () => {
      documentMode = true;
      return {
        write: (text) => {
          guard();
          return new Promise((done) => streams.stdout.write(text, () => done()));
        },
        restore: () => {
          documentMode = false;
        },
      };
    },
    stdoutForChild: () => (documentMode ? 2 : "inherit"),
    stdoutFlushed: () => new Promise((done) => streams.stdout.write("", () => done())),
    releaseStreams: () => {
      if (!guarded) return;
      guarded = false;
      streams.stdout.off("error", onError);
      streams.stderr.off("error", onError);
    },
  };
}
