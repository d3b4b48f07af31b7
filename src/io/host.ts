/**
 * The Host (issue 26): this process as every command sees it, built once in
 * src/main.ts (and src/launch.ts) and passed down, as rustup passes its
 * Process. It carries the environment, the platform and the home; the lines
 * out (its own channel, ./console.ts, every line masked); the one question,
 * the one progress reporter, the offer's panel and the one colour decision;
 * and the run's mode, quiet or --json; and its one HTTP client (./http-client.ts),
 * built at its first use, so a launch that makes no request builds none. A --json run is a Host whose questions
 * go to stderr, with its channel's document mode (documentStdout) keeping
 * stdout for the document alone. The channel, its EPIPE guard and its
 * document mode belong to the Host instance (and are shared by its modes).
 *
 * This is the one file of src/ that names the process's stdin, stdout and
 * stderr (with src/sea/main.ts's --version shortcut;
 * test/unit/one-channel.test.ts holds that); tests build a Host of their own
 * with test/support/host.ts `testHost`, or this one over streams of theirs.
 */
import { homedir } from "node:os";
import { isatty } from "node:tty";
import type { Env } from "../core/environment";
import type { Output } from "../core/errors";
import type { Platform } from "../core/layout";
import { homeOf, hostPlatform, hostTarget } from "../core/machine";
import { fancyOutput } from "../core/terminal-style";
import { buildPins, type Pins, type Target } from "../pins";
import { type DocumentStdout, outputChannel } from "./console";
import { type HttpClient, httpClient, type HttpRole } from "./http-client";
import { askLine, type Reply } from "./prompt";
import { type BarStream, progressFor, type ProgressReporter } from "./progress";
import { type PanelKeys, terminalPanel } from "./terminal-panel";

export interface HostMode {
  /** --quiet: questions, failures and the result only; no progress. */
  quiet: boolean;
  /** --json: stdout is the document's; questions go to stderr. */
  json: boolean;
}

/** What a --json run's document says besides the command and its exit code (src/cli/json.ts writes it). */
export interface JsonDocument {
  /** The command's own fields, filled in as it goes. */
  fields: Record<string, unknown>;
  /** A failure the command reports without throwing (a failed step, a declined question). */
  error: string | null;
}

export interface Host extends Output, HostMode {
  readonly env: Env;
  readonly platform: Platform;
  /** This machine's target in the pins' terms (linux-x64, win-x64, ...): the archives that are ours to fetch. */
  readonly target: Target;
  readonly home: string;
  /** The pins this build binds (../pins): every byte we fetch is checked against them. */
  readonly pins: Pins;
  /** stdin and stdout are both terminals: a question or a panel can be answered. */
  readonly terminal: boolean;
  /** The one colour decision for what goes to stdout (a terminal, and neither NO_COLOR nor CI). */
  readonly color: boolean;
  /** This process's one HTTP client (./http-client.ts), the same in every mode; built at its first use. */
  readonly http: HttpClient;
  /** One question on the terminal, one reply; on stdout unless `on` says stderr (and always stderr under --json). */
  ask(question: string, on?: "stdout" | "stderr"): Promise<Reply>;
  /** Download progress: bars on a terminal's stderr, indented lines otherwise, nothing when quiet. */
  progress(): ProgressReporter;
  /** A panel on the terminal that keys move through (../engine/startup-offer.ts): keys from stdin, drawn masked on stdout. */
  panel<R>(keys: PanelKeys<R>, initial: number): Promise<R>;
  /** The lines another process of ours sends on stdin, until it ends them (a version's module session, installed/internal.ts). */
  requests(): AsyncIterable<string>;
  /** Under --json, the document being filled in (the same one in every mode of this host); null otherwise. */
  readonly document: JsonDocument | null;
  /** This host for one command whose own flags set the mode. */
  withMode(mode: Partial<HostMode>): Host;
  /** --json (src/cli/json.ts): from now until restore(), stdout carries only the document, in every mode of this host. */
  documentStdout(): DocumentStdout;
  /** What a child that shares our terminal gets as its stdout: ours, or stderr's descriptor while stdout is the document's. */
  stdoutForChild(): "inherit" | 2;
  /** Resolves once everything written to stdout so far has been handed to the system (before an execve). */
  stdoutFlushed(): Promise<void>;
  /** Before Pi owns this process: the EPIPE guard is taken off its streams, so a closed pipe does to Pi what it does to Pi started directly. */
  releaseStreams(): void;
}

/** The streams a Host speaks through: this process's, or a test's. stdin is made only when something reads it. */
export interface HostStreams {
  stdout: NodeJS.WriteStream;
  stderr: NodeJS.WriteStream;
  stdin(): NodeJS.ReadStream;
}

/** This process's streams (reading process.stdin would make the stdin stream, which a launch may never use). */
function processStreams(): HostStreams {
  // Getters: Node makes process.stderr on its first read (on a pipe, setting O_NONBLOCK on fd 2, which an execve'd Pi
  // and its children would inherit), so a launch that writes nothing of ours leaves it unmade, as Pi started directly.
  return {
    get stdout() {
      return process.stdout;
    },
    get stderr() {
      return process.stderr;
    },
    stdin: () => process.stdin,
  };
}

/**
 * This process: its environment, its terminal, and a channel of its own over `streams` (the process's unless a test
 * gives others); `role`, which of our programs it runs (src/main.ts decides), names its HTTP requests.
 */
export function processHost(mode: HostMode = { quiet: false, json: false }, streams: HostStreams = processStreams(), role: HttpRole = "installer"): Host {
  const env = process.env as Env;
  const platform = hostPlatform(process.platform);
  const target = hostTarget(process.platform, process.arch);
  const channel = outputChannel(streams);
  // Read at first use, not when the Host is built: os.homedir() throws where HOME is unset and the user has no
  // passwd entry, and that must be a command's one-sentence failure, reported on this Host, not a stack at start.
  let home: string | undefined;
  let http: HttpClient | undefined;
  const make = (mode: HostMode, document: JsonDocument | null): Host => {
    const doc = mode.json ? (document ?? { fields: {}, error: null }) : null;
    return {
      env,
      platform,
      target,
      get home() {
        home ??= homeOf(env, platform, homedir());
        return home;
      },
      pins: buildPins(),
      get http() {
        http ??= httpClient({ role, env, target });
        return http;
      },
      ...mode,
      // fd 0 asked directly: reading process.stdin.isTTY would make the stdin stream, which a launch may never use.
      terminal: isatty(0) && Boolean(streams.stdout.isTTY),
      color: fancyOutput(streams.stdout, env),
      out: (line) => channel.log(line),
      err: (line) => channel.error(line),
      ask: (question, on = "stdout") => askLine(question, streams.stdin(), mode.json || on === "stderr" ? streams.stderr : streams.stdout),
      progress: () => progressFor(barStream(streams.stderr, channel.raw("stderr")), (line) => channel.log(`  ${line}`), env, mode.quiet),
      panel: (keys, initial) => terminalPanel(keys, initial, { input: streams.stdin(), write: channel.raw("stdout") }),
      // readline loads only in a module's session (a launch never reads stdin lines).
      requests: async function* () {
        const { createInterface } = await import("node:readline");
        yield* createInterface({ input: streams.stdin(), crlfDelay: Number.POSITIVE_INFINITY });
      },
      document: doc,
      withMode: (changed) => make({ ...mode, ...changed }, doc),
      documentStdout: () => channel.documentStdout(),
      stdoutForChild: () => channel.stdoutForChild(),
      stdoutFlushed: () => channel.stdoutFlushed(),
      releaseStreams: () => channel.releaseStreams(),
    };
  };
  return make(mode, null);
}

/** A terminal's stream as bars see it: its size and kind read from it, what they draw written through the channel. */
function barStream(stream: NodeJS.WriteStream, write: BarStream["write"]): BarStream {
  return {
    get isTTY() {
      return stream.isTTY;
    },
    get columns() {
      return stream.columns;
    },
    write,
  };
}
