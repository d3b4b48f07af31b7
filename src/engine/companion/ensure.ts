/**
 * The gentle-engram companion, the launch (spec: "Engram startup safety",
 * Recovery and setup). Right before Pi starts, in the launches that may run
 * first-use setup (firstUseApplies: a terminal, an interactive Pi, not
 * offline, not inside a Gentle Shell session; never --version, help, a Shell
 * or Pi subcommand, print or RPC/JSON mode), the launcher reads the agent
 * home's settings and does what companionAction says:
 *
 *  - install: `pi install npm:gentle-engram` through the version's own Pi,
 *    whose npm is ours (npmCommand), then the installed package.json must
 *    declare engram.startupPolicy: 1. Once per prefix: the attempt is claimed
 *    in <prefix>/config/companion.json before it starts and its end recorded,
 *    so a registry that is down does not hold up and nag every start, and a
 *    companion the user removed later is not put back. A failure is one line;
 *    Pi still starts, memory behind the guard as the Engram decision says.
 *  - migrate: Shell's old npm:gentle-engram@0.4.2 registration becomes
 *    npm:gentle-engram through Pi's own package manager, installing nothing;
 *    Pi's startup package-update notice then offers the update.
 *
 * Never throws: the worst case is Pi starting without the companion.
 */
import type { Output } from "../../core/errors";
import { COMPANION, COMPANION_SOURCE, companionAction, localSources, startupPolicyCheck, type CompanionAction } from "./decision";

export type Done = { ok: true } | { ok: false; reason: string };

export interface CompanionRecord {
  status: "started" | "installed" | "failed" | "check-failed";
  version?: string;
  reason?: string;
}

/** The launcher's side of the companion: the agent home, the marker, and Pi's package manager. */
export interface CompanionIo {
  /** null when the agent home is Shell's own, otherwise why not. */
  notOurs(): Promise<string | null>;
  readSettings(): Promise<string | null>;
  /** The `name` in a local source's package.json (resolved as Pi does), null without one. */
  localName(source: string): Promise<string | null>;
  /** Pi's npmCommand is ours, so `pi install` runs our npm. */
  npmReady: boolean;
  /** Claim the one install attempt (false when it was claimed before). */
  claim(): Promise<boolean>;
  record(record: CompanionRecord): Promise<void>;
  piInstall(source: string): Promise<Done>;
  installedManifest(): Promise<string | null>;
  /** Rewrite the registration `from` to `to` through Pi's package manager, installing nothing. */
  migrate(from: string, to: string): Promise<Done>;
}

export type CompanionOutcome =
  | CompanionAction
  | { action: "installed"; version: string }
  | { action: "failed"; reason: string }
  | { action: "check-failed"; reason: string }
  | { action: "migrated"; from: string }
  | { action: "migrate-failed"; reason: string };

const GUARDED = "memory stays behind Gentle Shell's Engram guard";

export async function ensureCompanion(io: CompanionIo, out: Pick<Output, "err">): Promise<CompanionOutcome> {
  let action: CompanionAction;
  try {
    const notOurs = await io.notOurs();
    const settings = notOurs === null ? await io.readSettings() : null;
    const localNames: Record<string, string | null> = {};
    for (const source of localSources(settings)) localNames[source] = await io.localName(source).catch(() => null);
    action = companionAction({ notOurs, settings, localNames });
  } catch (error) {
    return { action: "none", reason: (error as Error).message };
  }
  if (action.action === "migrate") return migrate(io, action.from, out);
  if (action.action !== "install") return action;
  if (!io.npmReady) return { action: "none", reason: "Pi has no npmCommand of ours" };
  try {
    if (!(await io.claim())) return { action: "none", reason: "the install was attempted before" };
  } catch (error) {
    return { action: "none", reason: `the companion record could not be written: ${(error as Error).message}` };
  }
  out.err(`gentle-shell: installing the ${COMPANION} memory companion for Pi once (pi install ${COMPANION_SOURCE})...`);
  const installed = await io.piInstall(COMPANION_SOURCE).catch((error: Error) => ({ ok: false, reason: error.message }) as Done);
  if (!installed.ok) {
    out.err(
      `gentle-shell: ${COMPANION} was not installed (${installed.reason}), so Pi starts without it and ${GUARDED}; run gentle-shell install ${COMPANION_SOURCE} to try again.`,
    );
    await io.record({ status: "failed", reason: installed.reason }).catch(() => undefined);
    return { action: "failed", reason: installed.reason };
  }
  const check = startupPolicyCheck(await io.installedManifest().catch(() => null));
  if (!check.ok) {
    out.err(`gentle-shell: ${COMPANION} was installed, but ${check.reason}, so ${GUARDED}; run gentle-shell update --extensions for a newer one.`);
    await io.record({ status: "check-failed", reason: check.reason }).catch(() => undefined);
    return { action: "check-failed", reason: check.reason };
  }
  await io.record({ status: "installed", version: check.version }).catch(() => undefined);
  return { action: "installed", version: check.version };
}

async function migrate(io: CompanionIo, from: string, out: Pick<Output, "err">): Promise<CompanionOutcome> {
  const done = await io.migrate(from, COMPANION_SOURCE).catch((error: Error) => ({ ok: false, reason: error.message }) as Done);
  if (!done.ok) {
    out.err(`gentle-shell: the ${COMPANION} registration ${from} was left as it is (${done.reason}).`);
    return { action: "migrate-failed", reason: done.reason };
  }
  out.err(
    `gentle-shell: ${COMPANION} is now registered as ${COMPANION_SOURCE} (it was ${from}), so Pi offers its updates; run gentle-shell update --extensions to update it.`,
  );
  return { action: "migrated", from };
}
