/**
 * The migration's wiring shared by `install` (the web installer's plan with
 * removal) and `migrate` (the upgrade's offer, with its one question after
 * the install): finding a global Gentle Shell, the gate, the removal and
 * what a new terminal will run afterwards.
 */
import { migrationGate, removalCommand, type Gate, type Owner } from "../core/migration-rules";
import type { Env } from "../core/environment";
import type { Layout } from "../core/layout";
import type { Pins, Target } from "../pins/types";
import { foreignShellOnPath, ownerManager, removeGlobalShell } from "../install/global-package-probe";
import type { InstallResult } from "../install/install-steps";
import { shadowWarningFor } from "../path/step";
import { recordChannel } from "../install/launcher-config-file";
import type { Host } from "../io/host";

export interface Found {
  /** The old gentle-shell on PATH, or null. */
  onPath: string | null;
  owner: Owner;
  gate: Gate;
}

function targetSupported(pins: Pins, target: Target): boolean {
  return pins.node.archives[target] != null;
}

/**
 * ownerManager runs only when there is something to ask about: an old
 * gentle-shell on PATH, or `always` (the user ran migrate).
 */
export async function findGlobalShell(layout: Layout, host: Pick<Host, "env" | "target">, release: string | null, always = false): Promise<Found> {
  const { env } = host;
  const onPath = await foreignShellOnPath(layout, env);
  const owner: Owner = onPath || always ? await ownerManager(layout, env) : { kind: "none" };
  return { onPath, owner, gate: migrationGate({ owner, targetSupported: targetSupported(layout.pins, host.target), release }) };
}

/** The removal's outcome: its line and detail (for --json), whether it failed, and the command to run by hand then. */
export interface Removal {
  line: string;
  detail: string;
  removed: boolean;
  failed: boolean;
  /** The owner's own removal command, for the user to run when it failed; null when nothing was tried. */
  command: string | null;
}

/** The removal once every step passed. */
export async function removeAfterInstall(layout: Layout, env: Env, owner: Owner): Promise<Removal> {
  if (owner.kind !== "manager") return { line: "", detail: "", removed: false, failed: false, command: null };
  const command = removalCommand(owner.manager);
  try {
    const detail = await removeGlobalShell(layout, env, owner);
    return { line: `✔ remove-global-shell: ${detail}`, detail, removed: true, failed: false, command };
  } catch (error) {
    const detail = `${(error as Error).message}. The bundled install stands; to remove the old one yourself, run ${command}`;
    return { line: `✖ remove-global-shell failed: ${detail}`, detail, removed: false, failed: true, command };
  }
}

/**
 * What a new terminal runs now, as one warning when an old gentle-shell still
 * wins (null otherwise): asked once the install (and any removal) is done.
 */
export function shadowWarning(layout: Layout, env: Env, result: InstallResult): string | null {
  return result.path?.plan ? shadowWarningFor(layout, env, result.path.plan) : null;
}

/** Spec (Migration from a global install): the release channel recorded in the launcher's config, a main override removed; its line, if any, printed. */
export async function recordReleaseChannel(layout: Layout, host: Host): Promise<void> {
  const line = await recordChannel(layout, host.env, host.home);
  if (line) host.out(line);
}
