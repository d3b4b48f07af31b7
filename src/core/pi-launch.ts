/**
 * A launch's classification (issue 40): what the words after gentle-shell
 * and the environment mean, read once by runEngine (src/engine/run.ts) and
 * carried to every reader: the command table, the startup offer, first-use
 * setup and the companion, the Engram decision, Pi's tools, the help and the
 * arguments handed to Pi. No reader reads the raw arguments again. Pi's
 * argument rules (spec: "Launcher in a bundled install"; "Engram startup
 * safety": a Pi version or help flag never probes, a Pi subcommand never
 * starts a server): which words are Pi's subcommands, where Pi reads
 * --version/--help as a flag, and the arguments the engine hands to Pi. Pure.
 */
import type { Env } from "./environment";
import { piOfflineByEnv } from "./env-flags";
import { offerAllowed } from "./offer-rules";
import { shellCommandOf, type ShellCommandName } from "./shell-commands";

/** Pi's own subcommands (Pi's docs/cli.md; Pi 1.6 main.js: package commands, config, auth, mcp); they take no --extension before them. */
export const PI_SUBCOMMANDS: ReadonlySet<string> = new Set(["install", "remove", "uninstall", "update", "list", "config", "auth", "mcp"]);

/** Pi options that always take the next argument as their value (Pi 1.6 cli/args.js, when one follows). */
const VALUE_ALWAYS = new Set([
  "--provider",
  "--model",
  "--api-key",
  "--system-prompt",
  "--append-system-prompt",
  "--name",
  "-n",
  "--session",
  "--session-id",
  "--fork",
  "--session-dir",
  "--models",
  "--tools",
  "-t",
  "--exclude-tools",
  "-xt",
  "--thinking",
  "--export",
  "--extension",
  "-e",
  "--skill",
  "--prompt-template",
  "--theme",
]);

/** How many of the following arguments Pi reads as the value of `arg` (0 or 1). */
function valueCount(arg: string, next: string | undefined): 0 | 1 {
  if (next === undefined) return 0;
  if (VALUE_ALWAYS.has(arg)) return 1;
  switch (arg) {
    case "--mode":
    case "--use-theme":
      return next.startsWith("-") ? 0 : 1;
    case "--print":
    case "-p":
      return !next.startsWith("@") && (!next.startsWith("-") || next.startsWith("---")) ? 1 : 0;
    case "--list-models":
      return !next.startsWith("-") && !next.startsWith("@") ? 1 : 0;
    case "--tui-mode":
      return next.startsWith("-") ? 0 : 1;
  }
  // An option Pi does not know (an extension's flag) takes a following plain word.
  if (arg.startsWith("--") && !arg.includes("=")) return !next.startsWith("-") && !next.startsWith("@") ? 1 : 0;
  return 0;
}

/** The version and help flags Pi reads in `args`: before Pi's own `--`, and not as another option's value. */
export function piFlagsRead(args: readonly string[]): { version: boolean; help: boolean } {
  const read = { version: false, help: false };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === "--") break;
    if (arg === "--version" || arg === "-v") read.version = true;
    else if (arg === "--help" || arg === "-h") read.help = true;
    else i += valueCount(arg, args[i + 1]);
  }
  return read;
}

/** The options Pi reads as flags in `args` (before Pi's own `--`, and not as another option's value), with the value each takes. */
export function piOptions(args: readonly string[]): Array<{ flag: string; value?: string }> {
  const out: Array<{ flag: string; value?: string }> = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === "--") break;
    const n = valueCount(arg, args[i + 1]);
    if (arg.startsWith("-") && arg.length > 1) out.push(n ? { flag: arg, value: args[i + 1]! } : { flag: arg });
    i += n;
  }
  return out;
}

/** Flags with which Pi does something else than open its interactive session (Pi 1.6 main.js, resolveAppMode). */
const NOT_INTERACTIVE = new Set(["-p", "--print", "--version", "-v", "--help", "-h", "--export", "--list-models"]);

/** Plain startup and --continue/--resume: the only launches the startup offer checks in (spec: "Startup update offer"). */
const SESSION_FLAGS = new Set(["--continue", "-c", "--resume", "-r"]);

/** Everything the launcher needs to know of a launch, read once (runEngine hands it on). */
export interface PiLaunch {
  /** What the user typed after gentle-shell. */
  args: readonly string[];
  /** `gentle-shell --version` (or -v) alone: Shell's and Pi's versions, no Pi started. */
  shellVersion: boolean;
  /** The command of Shell's the words name (../core/shell-commands.ts) and the words after its name; null for Pi's. */
  shellCommand: { name: ShellCommandName; rest: string[] } | null;
  /** The first word is one of Pi's subcommands (Pi gets the words as they are, without --extension). */
  piSubcommand: boolean;
  kind: "skip" | "classify" | "final";
  /** Pi prints its main help, so Gentle Shell's commands come first. */
  printsMainHelp: boolean;
  /** Pi opens its interactive session (given a terminal). */
  startsInteractive: boolean;
  /** Plain startup, or only --continue/--resume (the startup offer's launches). */
  plainSession: boolean;
  /** Pi runs offline: its --offline among the words, or PI_OFFLINE as Pi reads it (1/true/yes). */
  offline: boolean;
  /** A launch inside a Gentle Shell session (GENTLE_SHELL_PREFIX is set there: subagents, the agent's shell). */
  insideSession: boolean;
  /** The startup update offer may check in this launch (./offer-rules.ts offerAllowed). */
  offer: boolean;
  /** First-use setup and the companion may run in this launch, before the marker is looked at (firstUseApplies). */
  firstUse: boolean;
  /**
   * A Pi command that installs or updates packages, as the update policy names it (`gentle-shell install`,
   * `gentle-shell update --extensions`): its first word and its --flags, never a package source, which
   * may carry a token. null for every other launch, a changing command's help among them.
   */
  packageCommand: string | null;
}

/** Pi's subcommands that install or update packages: the update policy's (src/engine/pi-package-gate.ts). */
const CHANGING = new Set(["install", "update"]);

/** May this launch run first-use setup at all: a terminal, none of Shell's commands, outside a session, online, Pi's interactive session. */
function firstUseApplies(launch: Pick<PiLaunch, "shellCommand" | "insideSession" | "offline" | "startsInteractive">, terminal: boolean): boolean {
  if (!terminal) return false;
  // Shell's own commands (the engine dispatches them before Pi; asked here too, so no order can matter).
  if (launch.shellCommand) return false;
  // Inside a Gentle Shell session (a subagent, the agent's shell): never.
  if (launch.insideSession) return false;
  // Offline as Pi is (its --offline, PI_OFFLINE 1/true/yes).
  if (launch.offline) return false;
  return launch.startsInteractive;
}

/**
 * The launch, read once. `terminal`: a terminal on stdin and stdout, which the offer and first-use setup
 * need (without one, as in a test that gives none, neither runs).
 */
export function classifyLaunch(args: readonly string[], env: Readonly<Env>, terminal = false): PiLaunch {
  const piSubcommand = args.length > 0 && PI_SUBCOMMANDS.has(args[0]!);
  const read = piFlagsRead(args);
  const options = piOptions(args);
  const kind: PiLaunch["kind"] = piSubcommand
    ? args.slice(1).some((a) => a === "--help" || a === "-h")
      ? "skip"
      : "classify"
    : read.version || read.help
      ? "skip"
      : "final";
  const facts = {
    args,
    shellVersion: args.length === 1 && (args[0] === "--version" || args[0] === "-v"),
    shellCommand: shellCommandOf(args),
    piSubcommand,
    kind,
    printsMainHelp: !piSubcommand && read.help && !read.version,
    startsInteractive: !piSubcommand && options.every(({ flag, value }) => !NOT_INTERACTIVE.has(flag) && (flag !== "--mode" || value === "text")),
    plainSession: args.every((a) => SESSION_FLAGS.has(a)),
    // Offline exactly when Pi is. Pi 1.6.0's dist/main.js decides it once, in main():
    //   const offlineMode = args.includes("--offline") || isTruthyEnvFlag(process.env.PI_OFFLINE);
    // over all of its arguments: an --offline after `--` or as another option's value (`--model --offline`)
    // makes Pi offline too, though its parser then reads that word as a message or a value. So this reads
    // the words the same way (not piOptions, which stops at `--` and skips values); Pi's arguments are
    // these plus `--extension <gentle-pi>` (piArguments), which adds no --offline. PI_OFFLINE: ./env-flags.ts.
    offline: args.includes("--offline") || piOfflineByEnv(env),
    insideSession: Boolean(env.GENTLE_SHELL_PREFIX),
  };
  return {
    ...facts,
    offer: offerAllowed(facts, env, terminal),
    firstUse: firstUseApplies(facts, terminal),
    packageCommand: piSubcommand && kind !== "skip" && CHANGING.has(args[0]!) ? packageCommandWords(args) : null,
  };
}

/** `gentle-shell <install|update> --flag…`: the words after the subcommand are not repeated, a package source may carry a token. */
function packageCommandWords(args: readonly string[]): string {
  return ["gentle-shell", args[0], ...args.slice(1).filter((a) => a.startsWith("--") && !a.includes("="))].join(" ");
}

/** The arguments Pi gets: the version's gentle-pi loaded into every Pi session; a Pi subcommand goes to Pi as is. */
export function piArguments(install: { gentlePiRoot: string }, launch: Pick<PiLaunch, "args" | "piSubcommand">): string[] {
  if (launch.piSubcommand) return [...launch.args];
  return ["--extension", install.gentlePiRoot, ...launch.args];
}
