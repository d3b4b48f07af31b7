/**
 * The launcher's own commands, each registered once (as corepack registers
 * its commands): the words that name it, its strict spec where it has one,
 * and what it runs. runEngine does one lookup and one loop: a strict
 * command's --help and refusal come from its spec here, parsed once, and
 * the parsed options are handed to it. Everything else, and the forms of
 * `update` that are Pi's, goes on to Pi untouched. Wiring only: each
 * command's work lives in its own module, loaded when it runs.
 */
import { EXIT, type Output } from "../core/errors";
import type { Host } from "../io/host";
import { buildPins } from "../pins/index";
import type { BundledInstall } from "./bundled";
import { MEMORY_MIGRATE, parseShellCommand, SELF_UNINSTALL, type ShellCommandSpec, UPGRADE } from "./command-specs";

export interface EngineContext {
  install: BundledInstall;
  /** The process's Host (src/io/host.ts): its environment, lines and questions. */
  host: Host;
}

/** The options a strict command's spec read, or null for a command that reads its own. */
export type Given = Map<string, string | true> | null;

export interface EngineCommand {
  /** The words after `gentle-shell` that name it. */
  words: readonly string[];
  /** A strict command: --help prints its usage, and what it does not define is refused (exit 2) before it runs. */
  spec?: ShellCommandSpec;
  /** A strict command that words its own refusal (memory migrate names the one store it migrates). */
  refusesItself?: boolean;
  /** Its exit code; null hands the launch on to Pi. */
  run(ctx: EngineContext, rest: string[], given: Given): Promise<number | null>;
}

/** A strict command is named once, by its spec. */
function wordsOf(spec: ShellCommandSpec): readonly string[] {
  return spec.name.split(" ");
}

function usage(io: Output, message: string): number {
  io.err(`gentle-shell: ${message}`);
  return EXIT.usage;
}

export const ENGINE_COMMANDS: readonly EngineCommand[] = [
  {
    words: wordsOf(UPGRADE),
    spec: UPGRADE,
    async run({ install, host }, _rest, given) {
      const { upgradeOptions, upgradeBundled } = await import("./upgrade");
      const options = upgradeOptions(given!);
      return typeof options === "string" ? usage(host, options) : upgradeBundled(install, host.env, options, host);
    },
  },
  {
    // Pi updates (S5): the selecting forms are Shell's; null hands every other form to Pi.
    words: ["update"],
    async run({ install, host }, rest) {
      const { updateCommand } = await import("./update");
      return updateCommand(install, host.env, rest, host);
    },
  },
  {
    // issue 14: reads only; the memory decision probes the loopback endpoint (./status/).
    words: ["status"],
    async run({ install, host }, rest) {
      const { env } = host;
      const { parseStatusArgs, runStatus, statusUsageDocument } = await import("./status/command");
      const { hostStatusProbes } = await import("./status/probes");
      const options = parseStatusArgs(rest);
      if (typeof options === "string") {
        if (rest.includes("--json")) host.out(statusUsageDocument(options));
        return usage(host, options);
      }
      return runStatus({ layout: install.layout, pins: buildPins(), env, probes: hostStatusProbes(install.layout, env) }, options, host);
    },
  },
  {
    // What setup is given goes to Gentle AI untouched.
    words: ["setup"],
    async run({ install, host }, rest) {
      const { runSetup } = await import("./setup");
      return runSetup(install, host.env, rest, host);
    },
  },
  {
    // Explicit recovery after a core upgrade (./memory/): never a Pi prompt, never a probe of Pi's.
    words: wordsOf(MEMORY_MIGRATE),
    spec: MEMORY_MIGRATE,
    refusesItself: true,
    async run({ install, host }, rest) {
      const { memoryMigrate } = await import("./memory/migrate");
      return memoryMigrate(install.layout, host.env, ["migrate", ...rest], host);
    },
  },
  {
    words: wordsOf(SELF_UNINSTALL),
    spec: SELF_UNINSTALL,
    async run({ install, host }, _rest, given) {
      const { uninstallOptions } = await import("./self-uninstall/plan");
      const { selfUninstallBound } = await import("./self-uninstall/bound");
      return selfUninstallBound(install.layout, host, uninstallOptions(given!));
    },
  },
];

/** The command `args` (the words after gentle-shell) starts, and the words after its name; null for Pi's. */
export function findEngineCommand(args: readonly string[]): { command: EngineCommand; rest: string[] } | null {
  for (const command of ENGINE_COMMANDS) {
    if (command.words.every((word, i) => args[i] === word)) return { command, rest: args.slice(command.words.length) };
  }
  return null;
}

/** The one loop: a strict command's --help and refusal, then the command with what its spec read; null goes on to Pi. */
export async function runEngineCommand(found: { command: EngineCommand; rest: string[] }, ctx: EngineContext): Promise<number | null> {
  const { command, rest } = found;
  let given: Given = null;
  if (command.spec) {
    const parsed = parseShellCommand(command.spec, rest);
    if (parsed.kind === "help") {
      for (const line of parsed.lines) ctx.host.out(line);
      return EXIT.ok;
    }
    if (parsed.kind === "refuse" && !command.refusesItself) return usage(ctx.host, parsed.message);
    if (parsed.kind === "ok") given = parsed.given;
  }
  return command.run(ctx, rest, given);
}
