/**
 * `gentle-shell memory migrate --confirm-quiescent`, the effects (spec:
 * "Explicit recovery after a core upgrade"; "Recovering an interrupted
 * migration"). The rules, the provider interface this assumes and every
 * sentence are in ./migration-plan.ts. In order:
 *
 *   1. A marker present: print exactly what it records and the rollback
 *      steps, change nothing, exit 1 (no guess, no automatic rollback).
 *   2. Refusals that change nothing: no --confirm-quiescent; an explicit
 *      ENGRAM_* selection (a foreign store or endpoint is never adopted); no
 *      verified core; no real ~/.engram or no identity in it; no Shell
 *      provenance record; a listener on the default endpoint; a core whose
 *      help, read in an isolated home, does not advertise migrate-copy.
 *   3. The provider copies and migrates a sibling. A failure, a store that
 *      changed while it ran, or a report that does not check out keeps the
 *      original and the provenance and names what the run left beside
 *      ~/.engram (kept, never promoted).
 *   4. The marker, written before the first change; the original renamed to
 *      backup_dir; the copy promoted; the provenance replaced atomically; the
 *      marker removed only once identity and provenance are reconciled.
 *
 * `onStep` lets a test stop the process at each boundary (a kill -9 there);
 * the launcher never passes it.
 */
import type { Host } from "../../io/host";
import { createHash } from "node:crypto";
import { createReadStream, promises as fs } from "node:fs";
import { basename, join } from "../../core/native-path";
import type { Env } from "../../core/environment";
import { engramCheckEnvironment } from "../../core/environment";
import { EXIT, type Output } from "../../core/errors";
import type { Layout } from "../../core/layout";
import { lstatOrNull, writeFileAtomic } from "../../io/files";
import { CREATE_NEW } from "../../io/safe-fs";
import { run } from "../../io/process";
import { ownCoreVerified, migrationMarkerPath } from "../../installed/engram/launch";
import { DEFAULT_ENDPOINT, probeCompatibility, type Endpoint } from "../../installed/engram/probe";
import { engramSelection } from "../../installed/engram/selection";
import {
  HEX32,
  PROVIDER_COMMAND,
  SAY,
  advertisesMigrateCopy,
  checkReportPaths,
  interruptedReport,
  markerText,
  newSiblings,
  parseMigrateArgs,
  parseProviderReport,
  provenanceText,
  type MigrationMarker,
} from "./migration-plan";
import { ensureOwnDir } from "../../io/own-dir";
import { rename, rm } from "../../io/locked-retry";

/** The boundaries after which a step is durable. */
export type MigrateStep = "provider-done" | "marker-written" | "original-moved" | "copy-promoted" | "provenance-written";

export interface MigrateOptions {
  /** The default endpoint (tests: a free port). */
  endpoint?: Endpoint;
  /** Called after each durable step (tests only). */
  onStep?: (step: MigrateStep) => Promise<void> | void;
}

/** <prefix>/config/engram-provenance.json: the core-bound record of a Shell-provisioned store. */
export function provenancePath(layout: Layout): string {
  return join(layout.config, "engram-provenance.json");
}

async function readIdentity(dir: string): Promise<string | null> {
  const file = join(dir, ".instance-id");
  const st = await lstatOrNull(file);
  if (!st?.isFile()) return null;
  const id = (await fs.readFile(file, "utf8")).trim();
  return HEX32.test(id) ? id : null;
}

/** The core's help, read in an isolated home (a scratch HOME under <prefix>/tmp, so it reads no user configuration). */
async function coreHelp(layout: Layout, env: Env): Promise<string> {
  await ensureOwnDir(layout.prefix, layout.tmp, 0o700);
  const home = await fs.mkdtemp(join(layout.tmp, "engram-help-"));
  try {
    const isolated = engramCheckEnvironment(env);
    for (const k of Object.keys(isolated)) if (/^(XDG_|APPDATA$|LOCALAPPDATA$|HOMEDRIVE$|HOMEPATH$)/i.test(k)) delete isolated[k];
    isolated.HOME = home;
    isolated.USERPROFILE = home;
    const result = await run(layout.engram, ["--help"], { env: isolated, cwd: home, timeoutMs: 30_000 });
    return `${result.stdout}\n${result.stderr}`;
  } finally {
    await rm(home, { recursive: true, force: true });
  }
}

/**
 * A digest of the store: every entry's path and type, a file's bytes, a link's target (never followed).
 * Taken before and after the provider, it detects a writer seen during the run; it does not prove
 * that every writer has stopped (the confirmation is the operator's assertion, not a lock).
 */
async function storeDigest(root: string): Promise<string> {
  const hash = createHash("sha256");
  async function walk(dir: string, rel: string): Promise<void> {
    for (const name of (await fs.readdir(dir)).sort()) {
      const path = join(dir, name);
      const st = await fs.lstat(path);
      if (st.isSymbolicLink()) hash.update(`link ${rel}${name} ${await fs.readlink(path)}\0`);
      else if (st.isDirectory()) {
        hash.update(`dir ${rel}${name}\0`);
        await walk(path, `${rel}${name}/`);
      } else if (st.isFile()) {
        hash.update(`file ${rel}${name} ${st.size}\0`);
        for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
      } else hash.update(`other ${rel}${name}\0`);
    }
  }
  await walk(root, "");
  return hash.digest("hex");
}

async function listNames(dir: string): Promise<string[]> {
  return fs.readdir(dir).catch(() => []);
}

function lastLine(text: string): string {
  const lines = text.trim().split(/\r?\n/).filter(Boolean);
  return (lines.at(-1) ?? "").slice(0, 300);
}

/** `gentle-shell memory migrate`: `host.env` is the environment Engram's tools run in, `host.out`/`err` its lines. */
export async function memoryMigrate(
  layout: Layout,
  args: readonly string[],
  host: Pick<Host, "env" | "out" | "err">,
  options: MigrateOptions = {},
): Promise<number> {
  const { env } = host;
  const io: Output = host;
  const parsed = parseMigrateArgs(args);
  if (typeof parsed === "string") {
    io.err(`gentle-shell: ${parsed}`);
    return EXIT.usage;
  }
  const markerFile = migrationMarkerPath(layout);
  const provenanceFile = provenancePath(layout);
  // 1. An interrupted migration: say what it records, change nothing.
  const markerStat = await lstatOrNull(markerFile);
  if (markerStat) {
    const raw = markerStat.isFile()
      ? await fs.readFile(markerFile, "utf8")
      : `(not a regular file: a ${markerStat.isDirectory() ? "folder" : "link or special file"})`;
    for (const line of interruptedReport(markerFile, raw, provenanceFile)) io.err(line);
    return EXIT.failure;
  }
  // 2. Refusals that change nothing.
  if (!parsed.confirmed) {
    io.err(SAY.notConfirmed());
    return EXIT.usage;
  }
  const endpoint = options.endpoint ?? DEFAULT_ENDPOINT;
  const selection = engramSelection(env, layout.platform, { guard: layout.guard, url: `http://${endpoint.host}:${endpoint.port}` });
  if (selection.explicit.length > 0) {
    io.err(SAY.foreign(selection.explicit));
    return EXIT.failure;
  }
  if (!(await ownCoreVerified(layout))) {
    io.err(SAY.coreMissing());
    return EXIT.failure;
  }
  const source = join(layout.home, ".engram");
  if (!(await lstatOrNull(source))?.isDirectory()) {
    io.err(SAY.noStore(source));
    return EXIT.failure;
  }
  const identity = await readIdentity(source);
  if (!identity) {
    io.err(SAY.noIdentity(source));
    return EXIT.failure;
  }
  const provenance = await lstatOrNull(provenanceFile);
  if (!provenance) {
    io.err(SAY.noProvenance(provenanceFile));
    return EXIT.failure;
  }
  if (!provenance.isFile()) {
    io.err(SAY.badProvenance(provenanceFile, "is not a regular file"));
    return EXIT.failure;
  }
  const originalProvenance = await fs.readFile(provenanceFile, "utf8");
  const recorded = provenanceInstance(originalProvenance);
  if (recorded === undefined) {
    io.err(SAY.badProvenance(provenanceFile, "is not a JSON object"));
    return EXIT.failure;
  }
  if (recorded !== null && recorded !== identity) {
    io.err(SAY.badProvenance(provenanceFile, `records the instance ${recorded}, not the store's ${identity}`));
    return EXIT.failure;
  }
  if ((await probeCompatibility(endpoint)).kind !== "refused") {
    io.err(SAY.listening(`${endpoint.host}:${endpoint.port}`));
    return EXIT.failure;
  }
  const version = basename(layout.engramDir).replace(/^engram-/, "");
  if (!advertisesMigrateCopy(await coreHelp(layout, env))) {
    io.err(SAY.noMigrateCopy(version));
    return EXIT.failure;
  }

  // 3. The provider: a copy beside ~/.engram, migrated; the original is only read.
  const before = await listNames(layout.home);
  const digest = await storeDigest(source);
  const result = await run(layout.engram, [PROVIDER_COMMAND], { env: engramCheckEnvironment(env), cwd: layout.home });
  const left = newSiblings(before, await listNames(layout.home), source);
  // Whatever the provider said: a store that changed meanwhile had another writer (or a provider that broke its word).
  if ((await storeDigest(source)) !== digest) {
    io.err(SAY.sourceChanged(left));
    return EXIT.failure;
  }
  if (result.code !== 0) {
    const why = result.code === null ? `was stopped by ${result.signal}` : `exited with code ${result.code}`;
    const detail = lastLine(result.stderr);
    io.err(SAY.providerFailed(detail ? `${why} (${detail})` : why, left));
    return EXIT.failure;
  }
  const report = parseProviderReport(result.stdout);
  const problem = typeof report === "string" ? report : (checkReportPaths(report, source) ?? (await checkOnDisk(report, source, identity)));
  if (typeof report === "string" || problem) {
    io.err(SAY.providerFailed(`reported nothing Shell can promote: ${problem ?? report}`, left));
    return EXIT.failure;
  }
  await options.onStep?.("provider-done");

  // 4. The swap, behind the marker.
  const marker: MigrationMarker = {
    source,
    output: report.directory,
    backup: report.backup_dir,
    instance_id: identity,
    originalProvenance,
    started: new Date().toISOString(),
  };
  try {
    await ensureOwnDir(layout.prefix, layout.config, 0o700);
    await writeNew(markerFile, markerText(marker));
  } catch (error) {
    io.err(SAY.providerFailed(`could not be followed: ${markerFile} was not written (${(error as Error).message})`, left));
    return EXIT.failure;
  }
  let doing = "";
  try {
    await options.onStep?.("marker-written");
    doing = `renamed ${source} to ${report.backup_dir}`;
    await rename(source, report.backup_dir);
    await options.onStep?.("original-moved");
    doing = `promoted ${report.directory} to ${source}`;
    await rename(report.directory, source);
    await options.onStep?.("copy-promoted");
    doing = `replaced ${provenanceFile}`;
    const written = provenanceText({
      source,
      instanceId: identity,
      coreVersion: version,
      coreSha256: createHash("sha256")
        .update(await fs.readFile(layout.engram))
        .digest("hex"),
      backup: report.backup_dir,
      at: marker.started,
    });
    await writeFileAtomic(provenanceFile, written);
    await options.onStep?.("provenance-written");
    doing = "reconciled the store's identity and provenance";
    if ((await readIdentity(source)) !== identity) throw new Error(`${source}/.instance-id is not ${identity}`);
    if ((await fs.readFile(provenanceFile, "utf8")) !== written) throw new Error(`${provenanceFile} is not the record just written`);
    await rm(markerFile);
  } catch (error) {
    io.err(SAY.stepFailed(doing, (error as Error).message, markerFile));
    return EXIT.failure;
  }
  io.out(JSON.stringify({ status: "migrated", instance_id: identity, backup_dir: report.backup_dir }));
  return EXIT.ok;
}

/** The provenance record's instance_id: a string, null when it names none, undefined when it is not a JSON object. */
function provenanceInstance(text: string): string | null | undefined {
  try {
    const value = JSON.parse(text);
    if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
    return typeof value.instance_id === "string" ? value.instance_id : null;
  } catch {
    return undefined;
  }
}

/** The report against the disk: a real copy with the store's identity, a free backup name, the source unchanged. */
async function checkOnDisk(
  report: { directory: string; backup_dir: string; instance_id: string; source_instance_id: string },
  source: string,
  identity: string,
): Promise<string | null> {
  if (report.source_instance_id !== identity) return `it reports the source instance ${report.source_instance_id}, but ${source}/.instance-id is ${identity}`;
  if ((await readIdentity(source)) !== identity) return `${source}/.instance-id changed during the run`;
  if (!(await lstatOrNull(report.directory))?.isDirectory()) return `its directory ${report.directory} is not a folder`;
  if ((await readIdentity(report.directory)) !== report.instance_id) return `${report.directory}/.instance-id is not ${report.instance_id}`;
  if (await lstatOrNull(report.backup_dir)) return `its backup_dir ${report.backup_dir} already exists`;
  return null;
}

/** Create `path` (never over anything), write it and flush it. */
async function writeNew(path: string, text: string): Promise<void> {
  const handle = await fs.open(path, CREATE_NEW, 0o644);
  try {
    await handle.writeFile(text);
    await handle.sync().catch(() => undefined);
  } finally {
    await handle.close();
  }
}
