/**
 * The update policy for the installer's own paths (issue 47, item 2): a rerun
 * of `gentle-shell-setup install` over an existing install (the one-liners,
 * the Action, a package manager then install) and `migrate`. The other paths
 * that change the installed version ask ./update-gate.ts themselves:
 * `upgrade` (and `--to`), `update`, the startup offer, and the Pi commands
 * the launcher hands on that install or update packages (../engine/pi-package-gate.ts).
 *
 * Under `off`:
 *   - a first install (no active version) runs: there is nothing to update,
 *     and an administrator provisions machines with it;
 *   - a rerun over an active version may only reinstall that version, which
 *     is a repair (a runtime or a version folder put back), never a change:
 *     without --release it is pinned to the active release and says so in one
 *     line; a --release of another version is refused in one sentence naming
 *     the source, exit 4, before anything is asked; and the release as
 *     opened (its Gentle Shell with its Pi) must be the active version, or
 *     the install stops before it is installed;
 *   - `migrate` is refused, before anything is looked at: it exists to change
 *     which Gentle Shell runs (the global one for a release it picks), which
 *     `off` forbids; an administrator who wants it lifts `off` or makes the
 *     machine-wide file's values defaults ("enforce": false).
 */
import { join } from "../core/native-path";
import type { Env } from "../core/environment";
import { versionId, type Layout } from "../core/layout";
import { SHELL_PACKAGE } from "../core/release-project";
import { policyRefusal } from "../core/update-policy";
import { readTextOrNull } from "../io/files";
import { readCurrent } from "../install/activate";
import { updatePolicyOf } from "./update-gate";

export type InstallGate =
  | { kind: "free" }
  /** Off over an active version: only `release` (the active one's) may be installed, as `activeId`. */
  | { kind: "repair"; release: string; activeId: string; line: string | null; refusal: string }
  | { kind: "refuse"; message: string };

/** The active version's id and its Gentle Shell release (null when its manifest cannot be read), or null when there is none. */
async function activeVersion(layout: Layout): Promise<{ id: string; shell: string | null } | null> {
  const id = await readCurrent(layout).catch(() => null);
  if (id === null) return null;
  const text = await readTextOrNull(join(layout.versions, id, "package.json")).catch(() => null);
  let shell: string | null = null;
  try {
    const value = (JSON.parse(text ?? "{}") as { dependencies?: Record<string, unknown> }).dependencies?.[SHELL_PACKAGE];
    shell = typeof value === "string" ? value : null;
  } catch {
    shell = null;
  }
  return { id, shell };
}

/** `install` over what is there: free, a repair of the active version only, or refused (the sentence, without "gentle-shell-setup: "). */
export async function installGate(layout: Layout, env: Env, release: string | undefined): Promise<InstallGate> {
  const active = await activeVersion(layout);
  if (!active) return { kind: "free" };
  const policy = await updatePolicyOf(layout, env);
  const command = `gentle-shell-setup install${release ? ` --release ${release}` : ""}`;
  const refusal = policyRefusal(policy, command);
  if (!refusal) return { kind: "free" };
  if (!active.shell || (release !== undefined && release !== active.shell)) return { kind: "refuse", message: refusal };
  const line =
    release === undefined
      ? `Updates are off, so this install reinstalls the active Gentle Shell ${active.shell} (a repair) rather than a newer release.`
      : null;
  return { kind: "repair", release: active.shell, activeId: active.id, line, refusal };
}

/** The release as opened, against a repair-only gate: the refusal when it would change the active version, else null. */
export function releaseChange(gate: InstallGate, shell: string, pi: string): string | null {
  return gate.kind === "repair" && versionId(shell, pi) !== gate.activeId ? gate.refusal : null;
}

/** `migrate`: its refusal under off (the sentence, without "gentle-shell-setup: "), or null. */
export async function migrateRefusal(layout: Layout, env: Env): Promise<string | null> {
  return policyRefusal(await updatePolicyOf(layout, env), "gentle-shell-setup migrate");
}
