/**
 * Pi's argument rules (spec: "Launcher in a bundled install"; "Engram startup
 * safety": a Pi version or help flag never probes, a Pi subcommand never
 * starts a server). Pure: which words are Pi's subcommands, where Pi reads
 * --version/--help as a flag, and the arguments the engine hands to Pi.
 */
import type { BundledInstall } from "./bundled";

/** Pi's own subcommands (Pi's docs/cli.md; Pi 1.6 main.js: package commands, config, auth, mcp); they take no --extension before them. */
export const PI_SUBCOMMANDS: ReadonlySet<string> = new Set(["install", "remove", "uninstall", "update", "list", "config", "auth", "mcp"]);

/** The version's gentle-pi is loaded into every Pi session; a Pi subcommand goes to Pi as is. */
export function piArguments(install: Pick<BundledInstall, "gentlePiRoot">, args: string[]): string[] {
  if (args.length > 0 && PI_SUBCOMMANDS.has(args[0]!)) return args;
  return ["--extension", install.gentlePiRoot, ...args];
}

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

/** Everything the launcher needs to know of a launch's arguments, read once (runEngine hands it on). */
export interface PiLaunch {
  /** What the user typed after gentle-shell. */
  args: readonly string[];
  kind: "skip" | "classify" | "final";
  /** Pi prints its main help, so Gentle Shell's commands come first. */
  printsMainHelp: boolean;
  /** Pi opens its interactive session (given a terminal). */
  startsInteractive: boolean;
  /** Pi's own --offline flag is given. */
  offlineFlag: boolean;
}

export function classifyLaunch(args: readonly string[]): PiLaunch {
  const subcommand = args.length > 0 && PI_SUBCOMMANDS.has(args[0]!);
  const read = piFlagsRead(args);
  const options = piOptions(args);
  const kind: PiLaunch["kind"] = subcommand
    ? args.slice(1).some((a) => a === "--help" || a === "-h")
      ? "skip"
      : "classify"
    : read.version || read.help
      ? "skip"
      : "final";
  return {
    args,
    kind,
    printsMainHelp: !subcommand && read.help && !read.version,
    startsInteractive: !subcommand && options.every(({ flag, value }) => !NOT_INTERACTIVE.has(flag) && (flag !== "--mode" || value === "text")),
    offlineFlag: options.some((o) => o.flag === "--offline"),
  };
}
