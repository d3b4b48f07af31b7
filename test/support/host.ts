/**
 * A Host (src/io/host.ts) for in-process tests: its lines kept in `lines`,
 * its questions answered from `answers` in turn (a missing one: no terminal),
 * no progress, no panel (it ends as end of input would), --json's document
 * kept in `lines.document`, and the environment, platform and home a test
 * gives it.
 */
import { Writable } from "node:stream";
import type { Reply } from "../../src/io/prompt";
import { type Host, type HostMode, type JsonDocument, processHost } from "../../src/io/host";
import { silentProgress } from "../../src/io/progress";
import { buildPins } from "../../src/pins";
import { type HttpClient, httpClient } from "../../src/io/http-client";
import { hostTarget } from "../../src/core/machine";

/** The target a test host has unless told: this machine's, as the process's Host would. */
const HERE = hostTarget(process.platform, process.arch);

export interface TestHost extends Host {
  lines: { out: string[]; err: string[]; asked: string[]; document: string[] };
}

export function testHost(
  given: Partial<Pick<Host, "env" | "platform" | "target" | "home" | "pins" | "terminal" | "color">> &
    Partial<HostMode> & { answers?: Reply[]; requests?: string[] } = {},
): TestHost {
  const lines = { out: [] as string[], err: [] as string[], asked: [] as string[], document: [] as string[] };
  // While --json's document is being made (one state for every mode of this host, as the process's).
  let documentMode = false;
  const answers = [...(given.answers ?? [])];
  // One document for every mode of this host, made when a mode first asks for --json.
  const document: JsonDocument = { fields: {}, error: null };
  // One HTTP client for every mode of this host, the installer's, built at its first use.
  let http: HttpClient | undefined;
  const make = (mode: HostMode): TestHost => ({
    env: given.env ?? {},
    platform: given.platform ?? "linux",
    target: given.target ?? HERE,
    home: given.home ?? "/home/test",
    pins: given.pins ?? buildPins(),
    terminal: given.terminal ?? false,
    color: given.color ?? false,
    get http() {
      http ??= httpClient({ role: "installer", env: given.env ?? {}, target: given.target ?? HERE });
      return http;
    },
    ...mode,
    lines,
    out: (line) => void lines.out.push(line),
    err: (line) => void lines.err.push(line),
    ask: async (question) => {
      lines.asked.push(question);
      return answers.shift() ?? { noTerminal: true };
    },
    progress: () => silentProgress,
    panel: async (keys) => keys.onEnd,
    requests: async function* () {
      yield* given.requests ?? [];
    },
    document: mode.json ? document : null,
    withMode: (changed) => make({ ...mode, ...changed }),
    documentStdout: () => {
      documentMode = true;
      return {
        write: async (text) => void lines.document.push(text),
        restore: () => {
          documentMode = false;
        },
      };
    },
    stdoutForChild: () => (documentMode ? 2 : "inherit"),
    stdoutFlushed: async () => undefined,
    releaseStreams: () => undefined,
  });
  return make({ quiet: given.quiet ?? false, json: given.json ?? false });
}

/** Text written to a stream a test made, kept in `text`. */
export interface CapturedStream {
  stream: NodeJS.WriteStream;
  text(): string;
}

export function capturedStream(tty = false): CapturedStream {
  let text = "";
  const stream = new Writable({
    write(chunk, _encoding, done) {
      text += String(chunk);
      done();
    },
  }) as Writable & { isTTY?: boolean };
  if (tty) stream.isTTY = true;
  return { stream: stream as unknown as NodeJS.WriteStream, text: () => text };
}

/**
 * The process's own Host (src/io/host.ts `processHost`: its channel, masking and --json's document mode) over
 * streams of the test's: what it writes is in `stdout()` and `stderr()`; it has no stdin.
 */
export function streamHost(mode: HostMode = { quiet: false, json: false }, tty = false): { host: Host; stdout(): string; stderr(): string } {
  const out = capturedStream(tty);
  const err = capturedStream();
  const stdin = (): NodeJS.ReadStream => {
    throw new Error("this test's Host has no stdin");
  };
  return { host: processHost(mode, { stdout: out.stream, stderr: err.stream, stdin }), stdout: out.text, stderr: err.text };
}
