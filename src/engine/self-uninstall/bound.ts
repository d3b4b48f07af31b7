/**
 * gentle-shell self-uninstall with its real edges bound: the terminal's
 * question and, on Windows, the HKCU user Path adapter (through the one
 * PowerShell runner) and the delayed removal (the fixed script in a detached,
 * hidden Windows PowerShell). One binding for the engine's own command and for
 * `gentle-shell-setup uninstall` finishing an install its launcher cannot run.
 */
import type { Env } from "../../core/environment";
import type { Output } from "../../core/errors";
import type { Layout } from "../../core/layout";
import type { UninstallOptions } from "./plan";

export async function selfUninstallBound(layout: Layout, env: Env, options: UninstallOptions, io: Output): Promise<number> {
  const { askOnTerminal, selfUninstall } = await import("./run");
  if (layout.platform !== "win32") return selfUninstall(layout, env, options, { ...io, ask: askOnTerminal });
  const { windowsRegistry } = await import("../../install/path/windows-registry");
  const { runWindowsPowerShell, startDetachedPowerShell } = await import("../../io/powershell");
  const { windowsRemovalScheduler } = await import("./windows-removal");
  return selfUninstall(layout, env, options, {
    ...io,
    ask: askOnTerminal,
    registry: windowsRegistry(runWindowsPowerShell),
    scheduleWindowsRemoval: windowsRemovalScheduler((script, data) => startDetachedPowerShell(script, data)),
  });
}
