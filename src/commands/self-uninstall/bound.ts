/**
 * gentle-shell self-uninstall with its real edges bound: the terminal's
 * question and, on Windows, the HKCU user Path adapter (through the one
 * PowerShell runner) and the delayed removal (the fixed script in a detached,
 * hidden Windows PowerShell). One binding for the engine's own command and for
 * `gentle-shell-setup uninstall` finishing an install its launcher cannot run.
 */
import type { Layout } from "../../core/layout";
import type { Host } from "../../io/host";
import type { UninstallOptions } from "./removal-plan";

export async function selfUninstallBound(layout: Layout, host: Host, options: UninstallOptions): Promise<number> {
  const { askYesNo, selfUninstall } = await import("./run");
  const io = { out: host.out, err: host.err, ask: (question: string) => askYesNo(host, question) };
  if (layout.platform !== "win32") return selfUninstall(layout, host.env, options, io);
  const { windowsRegistry } = await import("../../path/windows-registry");
  const { windowsPowerShellRunner, startDetachedPowerShell } = await import("../../io/powershell");
  const { windowsRemovalScheduler } = await import("./windows-removal");
  return selfUninstall(layout, host.env, options, {
    ...io,
    registry: windowsRegistry(windowsPowerShellRunner(host.env)),
    scheduleWindowsRemoval: windowsRemovalScheduler((script, data) => startDetachedPowerShell(script, data, { env: host.env })),
  });
}
