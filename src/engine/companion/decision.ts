/**
 * The gentle-engram companion, the decision (spec: "Engram startup safety",
 * Recovery and setup: "In a Shell-owned home, a missing companion is
 * installed through Pi as npm:gentle-engram and checked for
 * engram.startupPolicy: 1 ... Shell migrates its old
 * npm:gentle-engram@0.4.2 registration to the unversioned source ...
 * linked/foreign homes, local companions, other companion pins and
 * unrelated extension pins are not rewritten"). Pure: from the agent home's
 * settings.json and whether the home is Shell's own to one action.
 *
 * Pi's package sources (Pi 1.6 docs/packages.md, core/package-manager.js
 * parseSource): `npm:<name>[@<version>]`; git (`git:` shorthand, or an
 * https, http, ssh or git URL, an `@ref` after the repository); anything else
 * is a local path, resolved from the settings file. A `packages` entry is a
 * source string or an object whose `source` is one (resource filters beside
 * it). Pi tells npm packages apart by name, git ones by repository, local
 * ones by resolved path.
 */

export const COMPANION = "gentle-engram";
/** What Shell installs: the unversioned source, so Pi's own package updates reach it. */
export const COMPANION_SOURCE = `npm:${COMPANION}`;
/** The registration earlier Shell releases wrote, migrated to COMPANION_SOURCE. */
export const OLD_REGISTRATION = `npm:${COMPANION}@0.4.2`;

export type Selection =
  | { kind: "npm"; source: string; name: string; version: string | null }
  | { kind: "git"; source: string; repo: string }
  | { kind: "local"; source: string };

/** One settings entry's source, as Pi parses it; null when the entry is not a source Pi reads. */
export function parseSource(entry: unknown): Selection | null {
  const source = typeof entry === "string" ? entry : typeof entry === "object" && entry !== null ? (entry as { source?: unknown }).source : undefined;
  if (typeof source !== "string") return null;
  if (source.startsWith("npm:")) {
    const spec = source.slice(4).trim();
    // A scoped name's own @ comes first: the version's @ is the one after the name.
    const at = spec.indexOf("@", spec.startsWith("@") ? 1 : 0);
    return at === -1 ? { kind: "npm", source, name: spec, version: null } : { kind: "npm", source, name: spec.slice(0, at), version: spec.slice(at + 1) };
  }
  if (/^(git:|https?:\/\/|ssh:\/\/|git:\/\/)/.test(source)) {
    const repo = source
      .replace(/^git:/, "")
      .replace(/@[^/@:]*$/, "")
      .replace(/\.git$/, "");
    return { kind: "git", source, repo: repo.slice(repo.search(/[^/:]*$/)) };
  }
  return { kind: "local", source };
}

export interface CompanionFacts {
  /** null: the agent home is Shell's own; otherwise why it is not (a link, another folder). */
  notOurs: string | null;
  /** settings.json's text; null when there is none. */
  settings: string | null;
  /** The package name of each local source (its package.json's `name`), null when it has none. */
  localNames?: Readonly<Record<string, string | null>>;
}

export type CompanionAction =
  /** Nothing to do, and why (for tests and for the record; the launcher says nothing). */
  | { action: "none"; reason: string }
  /** No companion is selected: `pi install npm:gentle-engram`. */
  | { action: "install" }
  /** Only Shell's old registration is selected: rewrite it to COMPANION_SOURCE, installing nothing. */
  | { action: "migrate"; from: string };

/** The settings' `packages` list, or why it cannot be read (Pi reports a broken settings file itself). */
export function settingsPackages(text: string | null): unknown[] | { warning: string } {
  if (text === null || text.trim() === "") return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(text.replace(/^\uFEFF/, ""));
  } catch {
    return { warning: "its settings.json is not valid JSON" };
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return { warning: "its settings.json is not a JSON object" };
  const packages = (parsed as { packages?: unknown }).packages;
  if (packages === undefined) return [];
  return Array.isArray(packages) ? packages : { warning: "its packages setting is not a list" };
}

/** The local sources in the settings, whose package.json the launcher reads to learn their names. */
export function localSources(text: string | null): string[] {
  const packages = settingsPackages(text);
  if (!Array.isArray(packages)) return [];
  return packages.flatMap((entry) => {
    const s = parseSource(entry);
    return s?.kind === "local" ? [s.source] : [];
  });
}

/** Is this selection a gentle-engram companion, whatever its source type? */
export function isCompanion(selection: Selection, localNames: Readonly<Record<string, string | null>> = {}): boolean {
  switch (selection.kind) {
    case "npm":
      return selection.name === COMPANION;
    case "git":
      return selection.repo === COMPANION;
    case "local":
      return localNames[selection.source] === COMPANION;
  }
}

export function companionAction(facts: CompanionFacts): CompanionAction {
  if (facts.notOurs !== null) return { action: "none", reason: `the agent home is not Shell's own: ${facts.notOurs}` };
  const packages = settingsPackages(facts.settings);
  if (!Array.isArray(packages)) return { action: "none", reason: packages.warning };
  const companions = packages.flatMap((entry) => {
    const s = parseSource(entry);
    return s && isCompanion(s, facts.localNames) ? [s] : [];
  });
  if (companions.length === 0) return { action: "install" };
  const old = companions.filter((s) => s.kind === "npm" && s.source.trim() === OLD_REGISTRATION);
  // Any other selection (unversioned, another pin, a local or git companion) is the user's: kept as it is.
  if (old.length === 0 || old.length < companions.length) return { action: "none", reason: "a companion is selected" };
  return { action: "migrate", from: old[0]!.source };
}

/** The installed companion's package.json: does it declare engram.startupPolicy: 1? */
export function startupPolicyCheck(manifest: string | null): { ok: true; version: string } | { ok: false; reason: string } {
  if (manifest === null) return { ok: false, reason: "its package.json was not found after the install" };
  let parsed: { name?: unknown; version?: unknown; engram?: { startupPolicy?: unknown } };
  try {
    parsed = JSON.parse(manifest.replace(/^\uFEFF/, ""));
  } catch {
    return { ok: false, reason: "its package.json is not valid JSON" };
  }
  const version = typeof parsed?.version === "string" ? parsed.version : "?";
  if (parsed?.name !== COMPANION) return { ok: false, reason: `its package.json names ${JSON.stringify(parsed?.name)}` };
  if (parsed.engram?.startupPolicy !== 1) return { ok: false, reason: `${COMPANION} ${version} does not declare engram.startupPolicy: 1` };
  return { ok: true, version };
}
