/**
 * How a command of the installer gets the Host (src/io/host.ts): runInstallerCli
 * (./index.ts) hands citty `commandData(host)` as the run's `data`, and each
 * command's run reads it back with hostOf. citty types `data` as any, so
 * hostOf checks that it is what commandData made rather than trusting a cast:
 * a run given anything else is a bug of ours, said as one.
 */
import type { Host } from "../io/host";

/** The run's data; only commandData makes one, so one that is read holds the Host. */
class CommandData {
  constructor(readonly host: Host) {}
}

export function commandData(host: Host): unknown {
  return new CommandData(host);
}

export function hostOf(data: unknown): Host {
  if (data instanceof CommandData) return data.host;
  throw new Error("a gentle-shell-setup command ran without its Host: src/cli/index.ts passes commandData(host) as citty's data");
}
