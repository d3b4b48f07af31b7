/**
 * The Host (issue 26): this process as every command sees it, built once in
 * src/main.ts and passed down, as rustup passes its Process. It carries the
 * environment, the platform and the home; the lines out (./console.ts, the one
 * channel, every line masked); the one question, the one progress reporter and
 * the one colour decision; and the run's mode, quiet or --json. A --json run
 * is a Host whose questions go to stderr, with the channel's document mode
 * (./console.ts documentStdout) keeping stdout for the document alone.
 *
 * Only the Host's own parts touch the terminal's streams
 * (test/unit/one-channel.test.ts holds that); tests build a Host of their own
 * with test/support/host.ts `testHost`.
 */
import { homedir } from "node:os";
import { isatty } from "node:tty";
import type { Env } from "../core/environment";
import type { Output } from "../core/errors";
import type { Platform } from "../core/layout";
import { homeOf, hostPlatform } from "../core/machine";
import { fancyOutput } from "../core/terminal-style";
import { channel } from "./console";
import { askLine, type Reply } from "./prompt";
import { progressFor, type ProgressReporter } from "./progress";

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
  readonly home: string;
  /** stdin and stdout are both terminals: a question or a panel can be answered. */
  readonly terminal: boolean;
  /** The one colour decision for what goes to stdout (a terminal, and neither NO_COLOR nor CI). */
  readonly color: boolean;
  /** One question on the terminal, one reply; on stdout unless `on` says stderr (and always stderr under --json). */
  ask(question: string, on?: "stdout" | "stderr"): Promise<Reply>;
  /** Download progress: bars on a terminal's stderr, indented lines otherwise, nothing when quiet. */
  progress(): ProgressReporter;
  /** The lines another process of ours sends on stdin, until it ends them (a version's module session, engine/internal.ts). */
  requests(): AsyncIterable<string>;
  /** Under --json, the document being filled in (the same one in every mode of this host); null otherwise. */
  readonly document: JsonDocument | null;
  /** This host for one command whose own flags set the mode. */
  withMode(mode: Partial<HostMode>): Host;
}

/** This process: its environment, its terminal, and the one channel. */
export function processHost(mode: HostMode = { quiet: false, json: false }, document: JsonDocument | null = null): Host {
  const env = process.env as Env;
  const platform = hostPlatform();
  const doc = mode.json ? (document ?? { fields: {}, error: null }) : null;
  return {
    env,
    platform,
    home: homeOf(env, platform, homedir()),
    ...mode,
    // fd 0 asked directly: reading process.stdin.isTTY would make the stdin stream, which a launch may never use.
    terminal: isatty(0) && Boolean(process.stdout.isTTY),
    color: fancyOutput(process.stdout, env),
    out: (line) => channel.log(line),
    err: (line) => channel.error(line),
    ask: (question, on = "stdout") => askLine(question, mode.json || on === "stderr" ? process.stderr : process.stdout),
    progress: () => progressFor(process.stderr, (line) => channel.log(`  ${line}`), env, mode.quiet),
    // readline loads only in a module's session (a launch never reads stdin lines).
    requests: async function* () {
      const { createInterface } = await import("node:readline");
      yield* createInterface({ input: process.stdin, crlfDelay: Number.POSITIVE_INFINITY });
    },
    document: doc,
    withMode: (changed) => processHost({ ...mode, ...changed }, doc),
  };
}
