/**
 * How a command of the installer gets the Host (src/io/host.ts): runInstallerCli
 * (./index.ts) hands citty `commandData(host)` as the run's `data`, and each
 * command's run reads it back with hostOf. citty types `data` as any, so
 * hostOf checks that it is what commandData made rather than trusting a cast:
 * a run given anything else is a bug of ours, said as one.
 */
import type { ArgsDef, CommandDef } from "citty";
import type { Host } from "../io/host";

/** The run's data; only commandData makes one, so one that is read holds the Host (and citty's root table, for completions). */
class CommandData {
  constructor(
    readonly host: Host,
    readonly table: CommandDef<ArgsDef> | null,
  ) {}
}

export function commandData(host: Host, table: CommandDef<ArgsDef> | null = null): unknown {
  return new CommandData(host, table);
}

/** citty's root table of the installer (issue 42: install writes completions made from it); ./index.ts passes it. */
export function tableOf(data: unknown): CommandDef<ArgsDef> {
  if (data instanceof CommandData && data.table) return data.table;
  throw new Error("a gentle-shell-setup command ran without its table: src/cli/index.ts passes commandData(host, main) as citty's data");
}

export function hostOf(data: unknown): Host {
  if (data instanceof CommandData) return data.host;
  throw new Error("a gentle-shell-setup command ran without its Host: src/cli/index.ts passes commandData(host) as citty's data");
}
