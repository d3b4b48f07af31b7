/** The installer's command line: one file per command, wiring only. */
import { channel, printBlock } from "../io/console";
import { defineCommand, renderUsage, runCommand } from "citty";
import { buildPins } from "../pins/index";
import { EXIT, UserError } from "../core/errors";
import { SETUP_VERSION } from "../version";
import { installCommand } from "./install";
import { bundleCommand } from "./bundle";
import { releaseCommand } from "./release";
import { verifyCommand } from "./verify";
import { migrateCommand } from "./migrate";
import { uninstallCommand } from "./uninstall";
import { helpEpilogue } from "./conventions";
import { fancyOutput } from "../io/progress";
import { strayArgument, type ArgDef } from "./strict";
import { statusCommand } from "./status";
import { jsonCommand, jsonFields, runWithJson } from "./json";

export function versionLine(): string {
  return `gentle-shell-setup ${SETUP_VERSION} (pins: ${buildPins().kind})`;
}

const main = defineCommand({
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
  },
});

/**
 * The top-level help as citty renders it (with its colours unless its own
 * environment tests leave them out), then the help's epilogue. The single
 * executable answers with it too (src/sea/shortcut.ts, rendered by the build).
 */
export async function topHelpText(): Promise<string> {
  return `${await renderUsage(main)}\n\nRun \`gentle-shell-setup install --help\` for the install options.\n\n${helpEpilogue()}`;
}

/** citty colours its usage text; plain text when output is not a terminal, or NO_COLOR or CI is set. */
function plain(text: string): string {
  const color = fancyOutput(process.stdout);
  // eslint-disable-next-line no-control-regex
  return color ? text : text.replace(/\u001b\[[0-9;]*m/g, "");
}

export async function runInstallerCli(args: string[]): Promise<void> {
  if (args.length === 1 && (args[0] === "--version" || args[0] === "-V")) {
    channel.log(versionLine());
    return;
  }
  if (args.length === 0 || args[0] === "--help" || args[0] === "-h" || args[0] === "help") {
    printBlock(plain(await topHelpText()));
    return;
  }
  if (args[0] !== "install" && args[0]!.startsWith("-")) args = ["install", ...args];
  // --json: one document on stdout, whatever happens below (./json.ts).
  const json = jsonCommand(args);
  if (json && !jsonFields()) return runWithJson(json, () => runInstallerCli(args));
  if (args[0] === "install" && (args.includes("--help") || args.includes("-h"))) {
    printBlock(plain(await renderUsage(installCommand, main as never)) + "\n\n" + helpEpilogue());
    return;
  }
  if (args[0] === "bundle" && (args.includes("--help") || args.includes("-h"))) {
    printBlock(plain(await renderUsage(bundleCommand, main as never)) + "\n\n" + helpEpilogue());
    return;
  }
  if (args[0] === "release" && (args.includes("--help") || args.includes("-h"))) {
    const subs = releaseCommand.subCommands as Record<string, typeof releaseCommand>;
    const sub = args[1] && subs[args[1]] ? subs[args[1]]! : releaseCommand;
    printBlock(plain(await renderUsage(sub, releaseCommand as never)) + "\n");
    return;
  }
  const simple: Record<string, typeof verifyCommand> = {
    verify: verifyCommand,
    migrate: migrateCommand as typeof verifyCommand,
    status: statusCommand as typeof verifyCommand,
    uninstall: uninstallCommand as typeof verifyCommand,
  };
  if (simple[args[0]!] && (args.includes("--help") || args.includes("-h"))) {
    const epilogue = args[0] === "verify" ? "" : `\n${helpEpilogue(args[0] !== "uninstall")}`;
    printBlock(plain(await renderUsage(simple[args[0]!]!, main as never)) + "\n" + epilogue);
    return;
  }
  if (!["install", "migrate", "uninstall", "bundle", "release", "verify", "status"].includes(args[0]!)) {
    throw new UserError(`unknown command ${JSON.stringify(args[0])}; see gentle-shell-setup --help`, EXIT.usage);
  }
  // Strict: an option or argument the command does not define is refused before anything runs.
  const commands: Record<string, { args?: unknown }> = {
    install: installCommand,
    migrate: migrateCommand,
    uninstall: uninstallCommand,
    bundle: bundleCommand,
    verify: verifyCommand,
    status: statusCommand,
  };
  const subs = releaseCommand.subCommands as Record<string, { args?: unknown }>;
  const [def, name, rest] =
    args[0] === "release" ? [subs[args[1] ?? ""], `release ${args[1] ?? ""}`, args.slice(2)] : [commands[args[0]!], args[0]!, args.slice(1)];
  if (def) {
    const stray = strayArgument((def.args ?? {}) as Record<string, ArgDef>, rest, name);
    if (stray) throw new UserError(stray, EXIT.usage);
  }
  await runCommand(main, { rawArgs: args });
}
