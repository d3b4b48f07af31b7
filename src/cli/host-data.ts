/**
 * How a command of the installer gets the Host (src/io/host.ts): src/cli/index.ts
 * hands it to citty as the run's `data`, and each command's run reads it here.
 */
import type { Host } from "../io/host";

export function hostOf(data: unknown): Host {
  return data as Host;
}
