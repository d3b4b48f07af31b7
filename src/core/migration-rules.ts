/**
 * Migration from a global install (spec: "Migration from a global install"),
 * the decisions: who owns an existing global gentle-pi (installOwner, from
 * what the user's own npm and pnpm report), whether it may move to the
 * bundled install (migrationGate), the command that removes it with its own
 * manager, and the lines that explain the move. Pure; the probes that feed it
 * live in install/global-package-probe.ts.
 */
import { tildify, type Platform } from "./layout";
import { compareVersions, isExactVersion } from "./versions";

export const PACKAGE_NAME = "gentle-pi";

export type Manager = "npm" | "pnpm";

/** What one manager reported about a global gentle-pi. */
export interface ManagerReport {
  manager: Manager;
  /** The manager's executable as found on PATH, or null when it is not installed. */
  executable: string | null;
  /** Its package folder as the manager reports it, null when it has none. */
  packageDir: string | null;
  /** Is that folder a link (npm link, pnpm link) rather than an installed copy? */
  linked: boolean;
  /** The version in its package.json, null when unreadable. */
  version: string | null;
}

export type Owner =
  | { kind: "manager"; manager: Manager; executable: string; packageDir: string; version: string | null }
  | { kind: "link"; manager: Manager; packageDir: string }
  | { kind: "several"; managers: Manager[] }
  | { kind: "none" };

/** installOwner: the one manager that owns an installed (not linked) global gentle-pi. */
export function installOwner(reports: ManagerReport[]): Owner {
  const found = reports.filter((r) => r.executable && r.packageDir);
  if (found.length === 0) return { kind: "none" };
  if (found.length > 1) return { kind: "several", managers: found.map((r) => r.manager) };
  const r = found[0]!;
  if (r.linked) return { kind: "link", manager: r.manager, packageDir: r.packageDir! };
  return { kind: "manager", manager: r.manager, executable: r.executable!, packageDir: r.packageDir!, version: r.version };
}

/** The release channel: an installed gentle-pi of an exact release version (no pre-release, no git or folder build). */
export function channelOf(version: string | null): "release" | "other" {
  return version !== null && isExactVersion(version) && !version.includes("-") ? "release" : "other";
}

export interface GateInput {
  owner: Owner;
  /** Does this machine's target have pinned runtimes? */
  targetSupported: boolean;
  /** The release about to be installed (its signed assets read), or null before it is known. */
  release: string | null;
}

export type Gate = { migrate: true; manager: Manager; installed: string } | { migrate: false; reason: string };

/**
 * migrationGate: the release channel and a supported target; an owner that
 * is npm or pnpm (never a link, never two at once); and, once known, a
 * release that is not older than the installed Gentle Shell.
 */
export function migrationGate(input: GateInput): Gate {
  const { owner } = input;
  if (owner.kind === "none") return { migrate: false, reason: "no global gentle-pi is installed by npm or pnpm" };
  if (owner.kind === "link") {
    return {
      migrate: false,
      reason: `the global gentle-pi is ${owner.manager === "npm" ? "an" : "a"} ${owner.manager} link to ${owner.packageDir}, which is never moved`,
    };
  }
  if (owner.kind === "several") {
    return {
      migrate: false,
      reason: `both ${owner.managers.join(" and ")} have a global gentle-pi, so its owner is not clear; remove one of them yourself first`,
    };
  }
  if (!input.targetSupported) return { migrate: false, reason: "this machine's platform has no pinned runtimes" };
  if (channelOf(owner.version) !== "release") {
    return { migrate: false, reason: `the global gentle-pi ${owner.version ?? "(version unreadable)"} is not a release version` };
  }
  if (input.release !== null && compareVersions(input.release, owner.version!) < 0) {
    return { migrate: false, reason: `Gentle Shell ${input.release} is older than the global gentle-pi ${owner.version}` };
  }
  return { migrate: true, manager: owner.manager, installed: owner.version! };
}

/**
 * The web installer's refusal (spec: Migration from a global install: a
 * release older than the installed Gentle Shell moves nothing, and both keep
 * their path): a release older than the global gentle-pi that npm or pnpm
 * owns would take its place on PATH, so it is not installed. Null when the
 * release is not known yet, or is not older.
 */
export function olderThanGlobal(owner: Owner, release: string | null): string | null {
  if (release === null || owner.kind !== "manager" || channelOf(owner.version) !== "release") return null;
  if (compareVersions(release, owner.version!) >= 0) return null;
  return `Gentle Shell ${release} is older than your global gentle-pi ${owner.version} (${owner.manager}) and would take its place on PATH, so nothing was installed; run the installer with --release ${owner.version} (or newer), or first remove the global one with ${removalCommand(owner.manager)}`;
}

/** removeGlobalShell's command, run through the owner's own manager. */
export function removalArgs(manager: Manager): string[] {
  return manager === "pnpm" ? ["remove", "-g", PACKAGE_NAME] : ["uninstall", "-g", PACKAGE_NAME];
}

/** The command as a user would type it. */
export function removalCommand(manager: Manager): string {
  return [manager, ...removalArgs(manager)].join(" ");
}

/** The question after a migration (spec, step 3). */
export function removalQuestion(manager: Manager): string {
  return `Remove the old global gentle-pi with ${manager} (${removalCommand(manager)})? [y/N] `;
}

export interface ExplanationInput {
  prefix: string;
  home: string;
  agent: string;
  manager: Manager;
  installed: string;
  /** The release's exact pair, when known before the install. */
  shell?: string | null;
  pi?: string | null;
}

/** Step 1: what moves, what does not. */
export function migrationExplanation(input: ExplanationInput): string[] {
  const at = (p: string) => tildify(p, input.home);
  const pair = input.shell
    ? `Gentle Shell ${input.shell} with its exact Pi${input.pi ? ` ${input.pi}` : ""}`
    : "the latest Gentle Shell release with its exact Pi";
  return [
    `Your Gentle Shell ${input.installed} is a global gentle-pi installed with ${input.manager}. This moves it to the bundled install:`,
    `  - ${pair}, with its own Node and pnpm, goes into ${at(input.prefix)};`,
    `  - your own Node, npm, pnpm and Pi are not touched, and ${at(input.agent)} stays where it is, with your sessions and settings;`,
    `  - only the PATH entry changes outside ${at(input.prefix)}, and the old global gentle-pi is removed only if you say so at the end.`,
  ];
}

/**
 * How the user's manager is started. On Windows npm and pnpm are .cmd files,
 * which only cmd.exe runs: its path reaches cmd.exe quoted, and a path cmd
 * would expand or split (% ! ^ & | < > or a quote) is refused.
 */
export function managerInvocation(
  platform: Platform,
  executable: string,
  args: string[],
  comspec: string | undefined,
): { command: string; args: string[]; verbatim: boolean } | { refused: string } {
  if (platform !== "win32" || !/\.(cmd|bat)$/i.test(executable)) return { command: executable, args, verbatim: false };
  if (/[%!^&|<>"]/.test(executable)) return { refused: `${executable} has a character cmd.exe would change, so it is not run` };
  return { command: comspec || "cmd.exe", args: ["/d", "/s", "/c", `""${executable}" ${args.join(" ")}"`], verbatim: true };
}
