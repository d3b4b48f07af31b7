/**
 * gentle-shell update (spec: "Launcher in a bundled install", Pi updates
 * (S5)). Pure. The arguments after `update` are read exactly as Pi 1.6.0's
 * parsePackageCommand reads them (dist/package-manager-cli.js), with our
 * alias --latest for --self:
 *
 *  - "self" (no target, --self, self or pi) and "all" (--all, --self with
 *    --extensions, self/pi with --extensions): Shell installs the newest
 *    published stable Pi for the current Shell as a new verified version;
 *    "all" then sends `update --extensions` to Pi;
 *  - --force with either: refused (a managed self update has no --force);
 *  - everything else (help, --models, --extensions, --extension <source>, a
 *    package target, and every form Pi refuses): Pi's own, unchanged.
 */
import { distributionFiles, type VersionProject } from "./release-project";
import { versionId } from "./layout";
import { compareVersions, isExactVersion } from "./versions";
import { peerAllows, type PiPeer } from "./pi-peer-range";

export type UpdateForm =
  | { kind: "pass" }
  | { kind: "refuse"; message: string }
  /** `trust`: Pi's project-trust flags as given, for the `update --extensions` of an "all" form. */
  | { kind: "select"; all: boolean; trust: string[] };

export const FORCE_REFUSAL =
  "--force is not available for Gentle Shell's managed Pi update, which always installs the newest published Pi as a new verified version (gentle-shell upgrade --rollback returns to the previous one).";

const TRUST = new Set(["-a", "--approve", "-na", "--no-approve"]);

export function classifyUpdate(args: readonly string[]): UpdateForm {
  let help = false;
  let refused = false;
  let force = false;
  let self = false;
  let extensions = false;
  let models = false;
  let all = false;
  let extension: string | undefined;
  let source: string | undefined;
  let unexpected: string | undefined;
  const trust: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === "-h" || arg === "--help") help = true;
    else if (arg === "--self" || arg === "--latest") self = true;
    else if (arg === "--extensions") extensions = true;
    else if (arg === "--models") models = true;
    else if (arg === "--all") all = true;
    else if (arg === "--force") force = true;
    else if (TRUST.has(arg)) trust.push(arg);
    else if (arg === "--extension") {
      const value = args[i + 1];
      // A missing value, or a second --extension, is Pi's to refuse.
      if (!value || value.startsWith("-") || extension !== undefined) refused = true;
      else extension = value;
      if (value && !value.startsWith("-")) i++;
    } else if (arg.startsWith("-")) refused = true;
    // Pi keeps the first non-empty word as the target; another one is an unexpected argument.
    else if (!source) source = arg;
    else unexpected ??= arg;
  }
  // Pi refuses on the first unexpected argument only when it is not empty: after an empty one, none refuses (`pi update pi ""` updates Pi).
  if (unexpected) refused = true;
  if (help || refused || models || extension !== undefined) return { kind: "pass" };
  let target: "self" | "all" | "extensions";
  if (source) {
    // A package target, or self/pi with --all: Pi's own (an update of that package, or its refusal).
    if ((source !== "self" && source !== "pi") || all) return { kind: "pass" };
    target = extensions ? "all" : "self";
  } else if (all) {
    if (self || extensions) return { kind: "pass" };
    target = "all";
  } else if (extensions) target = self ? "all" : "extensions";
  else target = "self";
  if (target === "extensions") return { kind: "pass" };
  if (force) return { kind: "refuse", message: FORCE_REFUSAL };
  return { kind: "select", all: target === "all", trust };
}

/**
 * The newest published stable Pi in the registry's package document: the
 * highest exact version without a pre-release part, passing over deprecated
 * ones and, given the active gentle-pi's peer range for Pi, the ones outside
 * it. `dist-tags.latest` is not trusted to be it: it may name a
 * pre-release, or lag behind.
 */
export function newestStablePi(packument: unknown, peer?: PiPeer): string {
  const versions = packument && typeof packument === "object" ? (packument as { versions?: unknown }).versions : undefined;
  let newest: string | null = null;
  let newestAny: string | null = null;
  if (versions && typeof versions === "object") {
    for (const [version, meta] of Object.entries(versions as Record<string, unknown>)) {
      if (!isExactVersion(version) || version.includes("-")) continue;
      if (meta && typeof meta === "object" && (meta as { deprecated?: unknown }).deprecated) continue;
      if (newestAny === null || compareVersions(version, newestAny) > 0) newestAny = version;
      if (peer && !peerAllows(peer, version)) continue;
      if (newest === null || compareVersions(version, newest) > 0) newest = version;
    }
  }
  if (newestAny === null)
    throw new Error("the registry lists no stable Pi release (an exact version such as 1.2.3 that is not deprecated); nothing was changed");
  if (newest !== null) return newest;
  // Only a peer range passes over every stable release.
  throw new Error(
    `no stable Pi release satisfies the active gentle-pi ${peer?.shell}'s peer range for Pi (${peer?.range}; the newest stable Pi is ${newestAny}); nothing was changed`,
  );
}

/** gentle-pi `shell` with Pi `pi` and no lockfile: pnpm resolves the pair (what installVersion installs). */
export function unlockedProject(shell: string, pi: string): VersionProject {
  return { manifest: { shell, pi, id: versionId(shell, pi) }, files: distributionFiles({ shell, pi }), lockfile: null };
}

/** The one warning line before an update installs a pair that no release verified. */
export function unlockedWarning(shell: string, pi: string): string {
  return `Warning: Shell installs Pi ${pi} with gentle-pi ${shell} without a release's verified lockfile; pnpm resolves that pair from the registry.`;
}
