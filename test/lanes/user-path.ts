/**
 * The HKCU user Path, raw (type and unexpanded text), through the product's
 * own registry adapter: what an install appends to and a self-uninstall must
 * give back exactly. Off Windows there is no such value (the PATH line lives
 * in a profile file, which the lane's folder snapshot covers): read() is null.
 */
import { windowsPowerShellRunner } from "../../src/io/powershell";
import { windowsRegistry } from "../../src/path/windows-registry";
import type { LanePlatform } from "./lane";

export interface UserPathReader {
  read(): Promise<unknown>;
}

export function userPathReader(platform: LanePlatform): UserPathReader {
  if (platform !== "win32") return { read: async () => null };
  const registry = windowsRegistry(windowsPowerShellRunner(process.env));
  return { read: () => registry.readUserPath() };
}
