/**
 * What `install` and `migrate` share once the user said yes: the prefix
 * claimed (on Windows the private folder, with its real adapter), the install
 * lock, the steps of src/install/install-steps.ts with the report lines,
 * and where the install came from remembered for setup and upgrade.
 */
import { existsSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { join } from "../core/native-path";
import { prefixLayout, unusablePrefix, type Layout } from "../core/layout";
import { envValue } from "../core/environment";
import type { Host } from "../io/host";
import { EXIT, UserError } from "../core/errors";
import { ownScript } from "../io/self";
import { acquireInstallLock } from "../install/lock";
import { runInstallSteps, type InstallBindings, type InstallChoices, type InstallResult } from "../install/install-steps";
import { windowsRegistry } from "../path/windows-registry";
import { windowsPowerShellRunner } from "../io/powershell";
import type { StepOutcome } from "../install/step-plan";
import { withKnob } from "./knobs";
import { WINDOWS_PREFIX_MARKER, WINDOWS_FALLBACK_FOLDER, WINDOWS_FIRST_FOLDER } from "../install/windows-private/rule";

/**
 * The layout the installer's commands start from: the default one of the Host's home, under its pins. It travels
 * beside the Host, never spread into a copy of it (a spread would read each of the Host's lazy fields at once).
 */
export function defaultLayout(host: Host): Layout {
  return prefixLayout({ home: host.home, platform: host.platform, pins: host.pins });
}

/** A prefix no install can live in (core/layout.ts unusablePrefix) is refused before the plan is printed. */
export function checkPrefix(layout: Layout): void {
  const why = unusablePrefix(layout);
  if (why) throw new UserError(`${why}; nothing was changed`, EXIT.failure);
}

/**
 * The layout of this machine's install, found without claiming anything: POSIX
 * ~/.gentle-shell; on Windows the private folder the installer chose,
 * %LOCALAPPDATA%\gentle-shell, or the fallback %USERPROFILE%\.gentle-shell-bundle
 * when only that one carries the bundle marker.
 */
export function installedLayout(host: Host): Layout {
  if (host.platform !== "win32") return defaultLayout(host);
  const local = envValue(host.env, "LOCALAPPDATA", "win32");
  const first = local ? join(local, WINDOWS_FIRST_FOLDER) : null;
  const fallback = join(host.home, WINDOWS_FALLBACK_FOLDER);
  const prefix = first && !existsSync(join(first, WINDOWS_PREFIX_MARKER)) && existsSync(join(fallback, WINDOWS_PREFIX_MARKER)) ? fallback : (first ?? fallback);
  return prefixLayout({ home: host.home, platform: "win32", pins: host.pins, windowsPrefix: prefix });
}

/** The options `install` and `migrate` share. */
export const SHARED_ARGS = {
  source: { type: "string", description: withKnob("source", "Where artifacts come from: official (default), a mirror URL, or an offline folder") },
  "modify-path": { type: "boolean", default: true, description: withKnob("modify-path", "Add gentle-shell to PATH") },
  verbose: { type: "boolean", description: "Show pnpm's output" },
  quiet: { type: "boolean", alias: "q", description: withKnob("quiet", "Print only questions, failures and the result") },
} as const;

/** What `install` and `migrate` asked for. */
export interface RunArgs extends InstallChoices {
  setup: NonNullable<InstallChoices["setup"]>;
}

export function reportLine(o: StepOutcome): string {
  if (o.status === "done") return `✔ ${o.id}: ${o.detail}`;
  if (o.status === "skipped") return `- ${o.id}: skipped (${o.detail})`;
  return `✖ ${o.id} failed: ${o.detail}`;
}

/**
 * Claim, lock, install; returns the result and the layout the install used (Windows' may differ).
 * `host` is the command's Host in its mode: quiet reports failed steps only and shows no progress.
 * `onRelease` is the command's gate on the release, heard once its signed manifest is verified.
 */
export async function installHere(
  host: Host,
  start: Layout,
  args: RunArgs,
  onRelease?: InstallBindings["onRelease"],
): Promise<{ result: InstallResult; layout: Layout }> {
  const { env, platform, home, pins, out, quiet } = host;
  let layout = start;
  let claimed: string;
  if (platform === "win32") {
    // The private folder (spec: "Layout"): LOCALAPPDATA first, the fallback only on an untrusted owner or ACL.
    const { ensureWindowsPrivateFolder } = await import("../install/windows-private/rule");
    const { windowsPrivateFolderAdapter } = await import("../install/windows-private/adapter");
    const folder = await ensureWindowsPrivateFolder(env, windowsPrivateFolderAdapter({ env }));
    layout = prefixLayout({ home, platform, pins, windowsPrefix: folder.prefix });
    await mkdir(layout.agent, { recursive: true });
    claimed = folder.created ? "created" : "already there";
    if (folder.fallback) claimed += ` (fallback: ${folder.firstRejected ?? "the first folder was rejected"})`;
  } else {
    const { claimPrefix } = await import("../install/claim");
    claimed = await claimPrefix(layout);
  }
  const lock = await acquireInstallLock(layout, 120_000, (pid) => out(`Waiting for another gentle-shell-setup (process ${pid}) to finish...`));
  const installLayout = layout;
  try {
    const result = await runInstallSteps(host, installLayout, args, {
      // Windows' user Path: the real HKCU adapter, through the one PowerShell runner.
      registry: platform === "win32" ? windowsRegistry(windowsPowerShellRunner(env)) : undefined,
      engine: ownScript,
      claimed,
      onRelease,
      installed: () => lock.release(),
      // Quiet: a failed step's line only.
      report: (o: StepOutcome) => (quiet && o.status !== "failed" ? undefined : out(reportLine(o))),
    });
    return { result, layout: installLayout };
  } finally {
    await lock.release();
  }
}
