/** The installer's command line: one file per command, wiring only. */
import type { Host } from "../io/host";
import { type ArgsDef, type CommandDef, defineCommand, renderUsage, runCommand } from "citty";
import type { Pins } from "../pins/types";
import { EXIT, UserError } from "../core/errors";
import { SETUP_VERSION } from "../core/installer-version";
import { installCommand } from "./install";
import { bundleCommand } from "./bundle";
import { releaseCommand } from "./release";
import { verifyCommand } from "./verify";
import { migrateCommand } from "./migrate-global";
import { uninstallCommand } from "./uninstall";
import { helpEpilogue } from "./conventions";
import { strayArgument, type ArgDef } from "./stray-arguments";
import { statusCommand } from "./status";
import { doctorCommand } from "./doctor";
import { jsonCommand, runWithJson } from "./json";
import { commandData } from "./command-host";
import { completionsCommand } from "./completions";

export function versionLine(pins: Pick<Pins, "kind">): string {
  return `gentle-shell-setup ${SETUP_VERSION} (pins: ${pins.kind})`;
}

const main: CommandDef<ArgsDef> = defineCommand({
  meta: {
    name: "gentle-shell-setup",
    version: SETUP_VERSION,
    description: "Installs Gentle Shell (Pi with gentle-pi, and their own Node and pnpm) into ~/.gentle-shell, verified against pins built into this file.",
  },
  subCommands: {
    install: installCommand,
    migrate: migrateCommand,
    uninstall: uninstallCommand,
    bundle: bundleCommand,
    release: releaseCommand,
    verify: verifyCommand,
    status: statusCommand,
    doctor: doctorCommand,
    completions: completionsCommand(() => main),
  },
});

/** citty's table of the installer's commands (completions read it: ./completion-tree.ts). */
export function installerTable(): CommandDef<ArgsDef> {
  return main;
}

/**
 * The top-level help as citty renders it (with its colours unless its own
 * environment tests leave them out), then the help's epilogue. The single
 * executable answers with it too (src/sea/shortcut.ts, rendered by the build).
 */
export async function topHelpText(): Promise<string> {
  return `${await renderUsage(main)}\n\nRun \`gentle-shell-setup install --help\` for the install options.\n\n${helpEpilogue()}`;
}

/** A block that ends with its own newline (a help text), printed as it is. */
function printBlock(host: Host, text: string): void {
  host.out(text.endsWith("\n") ? text.slice(0, -1) : text);
}

/** citty colours its usage text; plain text where the host's one colour decision says no. */
function plain(text: string, color: boolean): string {
  // eslint-disable-next-line no-control-regex
  return color ? text : text.replace(/\u001b\[[0-9;]*m/g, "");
}

type Command = CommandDef<ArgsDef>;

/** The commands `args` names in citty's tree (`release sign` two deep), the help's name for it, and the words after it; null for none. */
export function findCommand(args: readonly string[]): { def: Command; path: string[]; parentName: string; rest: string[] } | null {
  let def = main as Command;
  const path: string[] = [];
  for (const word of args) {
    const next = (def.subCommands as Record<string, Command> | undefined)?.[word];
    if (!next || word.startsWith("-")) break;
    def = next;
    path.push(word);
  }
  if (!path.length) return null;
  return { def, path, parentName: ["gentle-shell-setup", ...path.slice(0, -1)].join(" "), rest: args.slice(path.length) };
}

/** What a command's help ends with: verify and release (the workflow's) end with their usage; uninstall reads no knobs. */
function helpEnd(top: string): string {
  if (top === "verify" || top === "release") return "\n";
  return `\n\n${helpEpilogue(top !== "uninstall" && top !== "completions")}`;
}

/**
 * Runs the command `args` name; resolves to its exit code (src/main.ts sets it). `proxyRefused`: the sentence for a
 * proxy variable Node cannot use (src/io/env-proxy.ts), refused before any command runs.
 */
export async function runInstallerCli(args: string[], host: Host, proxyRefused: string | null = null): Promise<number> {
  if (args.length === 1 && (args[0] === "--version" || args[0] === "-V")) {
    host.out(versionLine(host.pins));
    return EXIT.ok;
  }
  if (args.length === 0 || args[0] === "--help" || args[0] === "-h" || args[0] === "help") {
    printBlock(host, plain(await topHelpText(), host.color));
    return EXIT.ok;
  }
  if (args[0] !== "install" && args[0]!.startsWith("-")) args = ["install", ...args];
  // --json: one document on stdout, whatever happens below (./json.ts); the host asks on stderr.
  const json = jsonCommand(args);
  if (json && !host.json) return runWithJson(json, host, (jsonHost) => runInstallerCli(args, jsonHost, proxyRefused));
  const found = findCommand(args);
  if (!found) throw new UserError(`unknown command ${JSON.stringify(args[0])}; see gentle-shell-setup --help`, EXIT.usage);
  const { def, path, parentName, rest } = found;
  const words = args.indexOf("--") === -1 ? args : args.slice(0, args.indexOf("--"));
  if (words.includes("--help") || words.includes("-h")) {
    const parent = defineCommand({ meta: { name: parentName, version: SETUP_VERSION } });
    printBlock(host, plain(await renderUsage(def, parent), host.color) + helpEnd(path[0]!));
    return EXIT.ok;
  }
  // Help needs no request; any command may make one.
  if (proxyRefused !== null) throw new UserError(proxyRefused, EXIT.usage);
  // Strict: an option or argument the command does not define is refused before anything runs.
  const name = path.join(" ");
  if (def.subCommands) {
    // `release` alone, or with a word that is none of its commands.
    const what = rest[0] === undefined ? `${name} needs one of its commands` : `unknown command ${JSON.stringify(`${name} ${rest[0]}`)}`;
    throw new UserError(`${what}; see gentle-shell-setup ${name} --help`, EXIT.usage);
  }
  const stray = strayArgument((def.args ?? {}) as Record<string, ArgDef>, rest, name);
  if (stray) throw new UserError(stray, EXIT.usage);
  // The command found is run itself: citty hands a run's data to the command it is given, not to its sub-commands.
  const { result } = await runCommand(def, { rawArgs: rest, data: commandData(host, main) });
  return commandCode(result);
}

/** A command's run resolves to its exit code; one that resolves to nothing succeeded. */
function commandCode(result: unknown): number {
  return typeof result === "number" ? result : EXIT.ok;
}
