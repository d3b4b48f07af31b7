/**
 * The launcher's own commands, each run from one entry (as corepack registers
 * its commands): what it runs, under the name the one table of Shell's
 * commands gives it (../core/shell-commands.ts: the words, the help's lines,
 * and a strict command's options, usage and exit codes). The launch's
 * classification (../core/pi-launch.ts) has already found the command;
 * runEngine does one lookup and one loop: a strict command's --help and
 * refusal come from its spec here, parsed once, and the parsed options are
 * handed to it. Everything else, and the forms of `update` that are Pi's,
 * goes on to Pi untouched. Wiring only: each command's work lives in its own
 * module, loaded when it runs.
 */
import { EXIT, type Output } from "../core/errors";
import type { PiLaunch } from "../core/pi-launch";
import type { ShellCommandName } from "../core/shell-commands";
import type { Host } from "../io/host";
import type { PrivateInstall } from "../installed/private-install";
import { parseShellCommand, type ShellCommandSpec, strictSpec } from "./specs";

export interface EngineContext {
  install: PrivateInstall;
  /** The process's Host (src/io/host.ts): its environment, lines and questions. */
  host: Host;
}

/** The options a strict command's spec read, or null for a command that reads its own. */
export type Given = Map<string, string | true> | null;

export interface EngineCommand {
  /**
   * Its exit code; null hands the launch on to Pi. A strict command (the table's `strict`) has had its --help
   * answered and what it does not define refused (exit 2) before this runs, unless it refuses itself: then `given`
   * is null and `refusal` says what the spec refused, for the command to say in its own form.
   */
  run(ctx: EngineContext, rest: string[], given: Given, refusal?: string): Promise<number | null>;
}

function usage(io: Output, message: string): number {
  io.err(`gentle-shell: ${message}`);
  return EXIT.usage;
}

/** One entry for each name of the table, and no other (the compiler checks both). */
export const ENGINE_COMMANDS: { readonly [N in ShellCommandName]: EngineCommand } = {
  upgrade: {
    async run({ install, host }, _rest, given) {
      const { upgradeOptions, upgradeInstall } = await import("./upgrade");
      const options = upgradeOptions(given!);
      return typeof options === "string" ? usage(host, options) : upgradeInstall(install, options, host);
    },
  },
  // Pi updates (S5): the selecting forms are Shell's; null hands every other form to Pi.
  update: {
    async run({ install, host }, rest) {
      const { updateCommand } = await import("./update");
      return updateCommand(install, rest, host);
    },
  },
  // issue 14: reads only; the memory decision probes the loopback endpoint (./status/).
  status: {
    async run({ install, host }, rest) {
      const { parseStatusArgs, statusOn, statusUsageDocument } = await import("./status/command");
      const options = parseStatusArgs(rest);
      if (typeof options === "string") {
        if (rest.includes("--json")) host.out(statusUsageDocument(options));
        return usage(host, options);
      }
      return statusOn(host, install.layout, options);
    },
  },
  // issue 41: reads only, unless --fix (./doctor/).
  doctor: {
    async run({ install, host }, rest, given, refusal) {
      const { doctorOn, doctorUsageDocument, sourceWithoutFix } = await import("./doctor/command");
      if (!given) {
        const message = refusal ?? "unreadable arguments";
        if (rest.includes("--json")) host.out(doctorUsageDocument(message));
        return usage(host, message);
      }
      const source = given.get("--source");
      const args = { json: given.has("--json"), fix: given.has("--fix"), source: typeof source === "string" ? source : undefined };
      const refused = sourceWithoutFix(args, "gentle-shell");
      if (refused) {
        if (args.json) host.out(doctorUsageDocument(refused));
        return usage(host, refused);
      }
      return doctorOn(host, install.layout, "gentle-shell", args);
    },
  },
  // What setup is given goes to Gentle AI untouched.
  setup: {
    async run({ install, host }, rest) {
      const { runSetup } = await import("./setup");
      return runSetup(install, rest, host);
    },
  },
  // Explicit recovery after a core upgrade (./memory/): never a Pi prompt, never a probe of Pi's.
  "memory migrate": {
    async run({ install, host }, rest) {
      const { memoryMigrate } = await import("./memory/migrate");
      return memoryMigrate(install.layout, ["migrate", ...rest], host);
    },
  },
  // issue 42: Shell's own words for the shell's completion (./completions.ts).
  completions: {
    async run({ host }, rest) {
      const { runCompletions } = await import("./completions");
      return runCompletions(rest, host);
    },
  },
  "self-uninstall": {
    async run({ install, host }, _rest, given) {
      const { uninstallOptions } = await import("./self-uninstall/removal-plan");
      const { selfUninstallBound } = await import("./self-uninstall/bound");
      return selfUninstallBound(install.layout, host, uninstallOptions(given!));
    },
  },
};

export interface FoundCommand {
  name: ShellCommandName;
  command: EngineCommand;
  /** Its strict spec from the table, or null for a command that reads its own words. */
  spec: ShellCommandSpec | null;
  rest: string[];
}

/** The entry of the command the launch names (its classification found it), its spec, and the words after its name; null for Pi's. */
export function findEngineCommand(launch: Pick<PiLaunch, "shellCommand">): FoundCommand | null {
  const found = launch.shellCommand;
  return found ? { ...found, command: ENGINE_COMMANDS[found.name], spec: strictSpec(found.name) } : null;
}

/** The one loop: a strict command's --help and refusal, then the command with what its spec read; null goes on to Pi. */
export async function runEngineCommand(found: Pick<FoundCommand, "command" | "spec" | "rest">, ctx: EngineContext): Promise<number | null> {
  const { command, spec, rest } = found;
  let given: Given = null;
  let refusal: string | undefined;
  if (spec) {
    const parsed = parseShellCommand(spec, rest);
    if (parsed.kind === "help") {
      for (const line of parsed.lines) ctx.host.out(line);
      return EXIT.ok;
    }
    if (parsed.kind === "refuse" && !spec.refusesItself) return usage(ctx.host, parsed.message);
    if (parsed.kind === "refuse") refusal = parsed.message;
    if (parsed.kind === "ok") given = parsed.given;
  }
  return command.run(ctx, rest, given, refusal);
}
