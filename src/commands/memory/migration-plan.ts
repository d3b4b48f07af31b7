/**
 * `gentle-shell memory migrate --confirm-quiescent`, the pure part (spec:
 * "Engram startup safety", "Explicit recovery after a core upgrade",
 * "Recovering an interrupted migration"). The effects are in ./migrate.ts.
 *
 * Why the rules are what they are. The store in ~/.engram is the user's
 * memory, shared with their other agents: Shell never opens it, never
 * deletes it and never guesses. The bundled core's provider does the only
 * work that touches the data, on a copy (a new sibling of ~/.engram);
 * Shell only checks what the provider reports, then swaps folders by
 * rename, with a marker written before the first change, so an interruption
 * is always visible and explainable.
 *
 * THE PROVIDER INTERFACE IS AN ASSUMPTION. The Engram v3.5.2 source that
 * implements `migrate-copy` could not be read from here (only older Engram
 * sources were reachable), so this is the narrowest interface the spec
 * implies, and the fixture Engram (test/support/engram.ts) implements
 * exactly this and nothing more:
 *
 *   - `engram --help` lists `migrate-copy` as a command (a line that starts
 *     with it, after indentation), as Engram's usage lists its commands;
 *   - `engram migrate-copy`, with no arguments, works on Engram's default
 *     data directory (~/.engram; no ENGRAM_* setting reaches it), copies the
 *     complete directory to a new sibling, validates and migrates only that
 *     copy, and on success exits 0 printing one JSON object on stdout:
 *       { "source_dir": "<abs>", "directory": "<abs new sibling>",
 *         "backup_dir": "<abs sibling to rename the original to>",
 *         "source_instance_id": "<32 hex>", "instance_id": "<32 hex>" }
 *   - the identity evidence is Engram's own `.instance-id` file (32 hex, as
 *     internal/store/instance.go writes it): the source's must equal
 *     source_instance_id, the copy's must equal instance_id, and the copy
 *     is the same store, so the two are equal.
 *
 * If the real provider differs, the help check or these checks refuse, and
 * nothing of the user's has changed.
 */
import { basename, dirname, isAbsolute, join, normalize } from "../../core/native-path";

export const CONFIRM_FLAG = "--confirm-quiescent";
export const PROVIDER_COMMAND = "migrate-copy";
const PREFIX = "gentle-shell:";

/** What the user asked for: `memory migrate` and its one flag. */
export function parseMigrateArgs(args: readonly string[]): { confirmed: boolean } | string {
  if (args[0] !== "migrate") return `unknown memory command ${JSON.stringify(args[0] ?? "")}; the only one is: gentle-shell memory migrate ${CONFIRM_FLAG}.`;
  let confirmed = false;
  for (const arg of args.slice(1)) {
    if (arg === CONFIRM_FLAG) confirmed = true;
    // No flag names another store or endpoint: explicit foreign data locations are never adopted.
    else return `memory migrate takes only ${CONFIRM_FLAG} (it migrates ~/.engram and nothing else), not ${JSON.stringify(arg)}.`;
  }
  return { confirmed };
}

/** The help's commands include migrate-copy: a line that starts with it, after indentation. */
export function advertisesMigrateCopy(help: string): boolean {
  return help.split(/\r?\n/).some((line) => new RegExp(`^\\s*${PROVIDER_COMMAND}(\\s|$)`).test(line));
}

export const HEX32 = /^[0-9a-f]{32}$/;

/** What the provider reported on success. */
export interface ProviderReport {
  source_dir: string;
  directory: string;
  backup_dir: string;
  source_instance_id: string;
  instance_id: string;
}

/** The provider's stdout as a report, or why it is not one. */
export function parseProviderReport(stdout: string): ProviderReport | string {
  let value: unknown;
  try {
    value = JSON.parse(stdout.trim());
  } catch {
    return "its output is not one JSON object";
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return "its output is not one JSON object";
  const r = value as Record<string, unknown>;
  for (const key of ["source_dir", "directory", "backup_dir", "source_instance_id", "instance_id"]) {
    if (typeof r[key] !== "string" || r[key] === "") return `its report has no ${key}`;
  }
  return r as unknown as ProviderReport;
}

/**
 * The report's directories against the source: absolute, normalized, three
 * distinct new siblings of it (the same parent folder, so renames stay on one
 * volume), and both identities 32 hex and equal. Null when it holds.
 */
export function checkReportPaths(report: ProviderReport, source: string): string | null {
  for (const key of ["source_dir", "directory", "backup_dir"] as const) {
    const p = report[key];
    if (!isAbsolute(p) || normalize(p) !== p) return `its ${key} ${JSON.stringify(p)} is not an absolute, normalized path`;
  }
  if (report.source_dir !== source) return `it reports the store ${JSON.stringify(report.source_dir)}, not ${source}`;
  for (const key of ["directory", "backup_dir"] as const) {
    const p = report[key];
    if (dirname(p) !== dirname(source) || p === source) return `its ${key} ${JSON.stringify(p)} is not a new sibling of ${source}`;
  }
  if (report.directory === report.backup_dir) return "its directory and backup_dir are the same path";
  if (!HEX32.test(report.source_instance_id) || !HEX32.test(report.instance_id)) return "its identity evidence is not two 32-hex instance ids";
  if (report.instance_id !== report.source_instance_id) return "the copy's instance id differs from the source's";
  return null;
}

// --- the marker -------------------------------------------------------------------

/** <prefix>/config/engram-migration.json, written before the first change. */
export interface MigrationMarker {
  /** ~/.engram. */
  source: string;
  /** The provider's migrated copy. */
  output: string;
  /** Where the original goes (the provider's backup_dir). */
  backup: string;
  /** The store's instance identity (source and copy alike). */
  instance_id: string;
  /** The provenance record as it was, byte for byte (its JSON text). */
  originalProvenance: string;
  /** When the marker was written (ISO 8601). */
  started: string;
}

export function markerText(marker: MigrationMarker): string {
  return `${JSON.stringify(marker, null, 2)}\n`;
}

/** The core-bound provenance Shell writes after a promotion (ours: Engram does not read it). */
export function provenanceText(p: { source: string; instanceId: string; coreVersion: string; coreSha256: string; backup: string; at: string }): string {
  return `${JSON.stringify(
    {
      store: p.source,
      instance_id: p.instanceId,
      core: { version: p.coreVersion, sha256: p.coreSha256 },
      migrated: { at: p.at, backup: p.backup },
    },
    null,
    2,
  )}\n`;
}

// --- what the user reads ------------------------------------------------------------

export const SAY = {
  notConfirmed: () =>
    `${PREFIX} memory migrate changes ~/.engram: first stop every Engram client and server using it and keep a complete backup of it (including its WAL and configuration), then run gentle-shell memory migrate ${CONFIRM_FLAG}.`,
  foreign: (names: string[]) =>
    `${PREFIX} memory migrate migrates only the default store ~/.engram and never adopts another one, so it does nothing while ${names.join(", ")} ${names.length === 1 ? "is" : "are"} set; unset ${names.length === 1 ? "it" : "them"} and run it again.`,
  coreMissing: () => `${PREFIX} memory migrate needs Gentle Shell's verified Engram core, which is not installed; run gentle-shell setup first.`,
  noMigrateCopy: (version: string) =>
    `${PREFIX} the bundled Engram ${version} does not advertise migrate-copy in its help, so nothing was migrated and ~/.engram and its provenance are unchanged.`,
  listening: (where: string) =>
    `${PREFIX} something answers on ${where}, so an Engram server may be using ~/.engram; stop every Engram client and server, then run memory migrate again.`,
  noStore: (source: string) => `${PREFIX} there is no Engram store to migrate: ${source} is not a folder.`,
  noIdentity: (source: string) =>
    `${PREFIX} ${source}/.instance-id does not hold a 32-hex instance id, so the store's identity cannot be established and nothing was migrated.`,
  noProvenance: (file: string) =>
    `${PREFIX} ~/.engram was not provisioned by Gentle Shell (there is no ${file}), so memory migrate leaves it to the Engram that made it.`,
  badProvenance: (file: string, why: string) => `${PREFIX} ${file} ${why}, so nothing was migrated; ~/.engram and the record are unchanged.`,
  providerFailed: (why: string, kept: string[]) =>
    `${PREFIX} the bundled Engram's migrate-copy ${why}; ~/.engram and its provenance are unchanged${kept.length ? `, and ${kept.map((k) => JSON.stringify(k)).join(", ")} (what it left beside ~/.engram) ${kept.length === 1 ? "is" : "are"} kept for diagnosis, never promoted` : ""}.`,
  sourceChanged: (kept: string[]) =>
    `${PREFIX} ~/.engram changed while the bundled Engram's migrate-copy ran, so another Engram client or server may still be using it; nothing was promoted and its provenance is unchanged${kept.length ? `, and ${kept.map((k) => JSON.stringify(k)).join(", ")} ${kept.length === 1 ? "is" : "are"} kept for diagnosis` : ""}: stop every client and server, then run memory migrate again.`,
  stepFailed: (step: string, why: string, marker: string) =>
    `${PREFIX} memory migrate stopped while it ${step} (${why}); ${marker} records what was done: run gentle-shell memory migrate again to see it and how to recover.`,
};

/** The spec's rollback steps ("Recovering an interrupted migration"), as lines. */
export function rollbackSteps(m: { source: string; output: string; backup: string; provenanceFile: string; markerFile: string }): string[] {
  return [
    "To roll back (Recovering an interrupted migration):",
    "  0. Keep every Engram client and server stopped. Do not simply remove the marker, and preserve all of these paths while you inspect them.",
    "  1. Verify the paths above and the recorded instance id (each store's .instance-id file).",
    `  2. If the backup ${m.backup} exists, it is the original directory: move any current ${m.source} to a separate quarantine name, then rename the backup to ${m.source}.`,
    `     If no backup exists, do not replace ${m.source} with the incomplete output ${m.output}.`,
    `  3. Restore originalProvenance atomically to ${m.provenanceFile} (write a temporary file beside it, then rename it), preserving the old core hash exactly.`,
    `  4. Only after the source identity and the provenance are reconciled, remove ${m.markerFile}. Keep the migration output ${m.output} for diagnosis.`,
    "  If these facts cannot be established, leave the marker in place and ask for recovery assistance rather than guessing.",
  ];
}

/** What `memory migrate` prints when a marker is present: exactly what it records, then the rollback steps. */
export function interruptedReport(markerFile: string, markerRaw: string, provenanceFile: string): string[] {
  const head = `${PREFIX} an interrupted memory migration is recorded in ${markerFile}; memory migrate changes nothing until it is recovered.`;
  let parsed: Partial<MigrationMarker> | null = null;
  try {
    const value = JSON.parse(markerRaw);
    if (typeof value === "object" && value !== null && !Array.isArray(value)) parsed = value;
  } catch {
    // shown raw below
  }
  const field = (v: unknown) => (typeof v === "string" ? v : JSON.stringify(v ?? null));
  if (!parsed || typeof parsed.source !== "string" || typeof parsed.output !== "string" || typeof parsed.backup !== "string") {
    return [
      head,
      "The marker cannot be read as a migration record; its exact content:",
      markerRaw,
      "Leave the marker in place and ask for recovery assistance rather than guessing.",
    ];
  }
  return [
    head,
    `  source:             ${parsed.source}`,
    `  output:             ${parsed.output}`,
    `  backup:             ${parsed.backup}`,
    `  instance_id:        ${field(parsed.instance_id)}`,
    // As JSON: one line, every byte of the record visible (it ends with a newline as written).
    `  originalProvenance: ${JSON.stringify(parsed.originalProvenance ?? null)}`,
    ...rollbackSteps({ source: parsed.source, output: parsed.output, backup: parsed.backup, provenanceFile, markerFile }),
  ];
}

/** The sibling names that appeared beside the source during the provider's run (what a failed run left). */
export function newSiblings(before: readonly string[], after: readonly string[], source: string): string[] {
  const had = new Set(before);
  return after
    .filter((name) => !had.has(name))
    .map((name) => join(dirname(source), name))
    .filter((p) => basename(p) !== basename(source));
}
