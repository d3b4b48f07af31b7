/**
 * The companion's I/O (src/engine/companion/ensure.ts): the agent home's
 * settings and ownership (agentHomeIsOurs, the npmCommand rule's), the
 * record <prefix>/config/companion.json (0600 in config/, claimed
 * exclusively like the setup marker), and Pi's own package manager, always
 * the version's exact Pi on our Node:
 *
 *  - install: `pi install npm:gentle-engram` (Pi runs npm through our
 *    npmCommand; it installs under <agent home>/npm and adds the source to
 *    settings.json).
 *  - migrate: Pi 1.6 has no command that changes a registration without
 *    installing (`pi install` of the unversioned source would install the
 *    newest release). Its package manager does: DefaultPackageManager's
 *    addSourceToSettings, exported by Pi's main module, replaces the entry of
 *    the same package (keeping an object entry's filters) and writes
 *    settings.json through Pi's SettingsManager, under Pi's own lock and in
 *    Pi's format. A small module script runs it with our Node.
 */
import { errnoCode } from "../../core/errno";
import { promises as fs } from "node:fs";
import { isAbsolute, join, resolve } from "../../core/native-path";
import type { Env } from "../../core/environment";
import type { Layout } from "../../core/layout";
import { redactText } from "../../core/secrets";
import { ensureRealFolder, lstatOrNull, readTextOrNull, writeFileAtomic } from "../../io/files";
import { run, type RunResult } from "../../io/process";
import type { PrivateInstall } from "../../installed/private-install";
import { agentHomeIsOurs } from "../../installed/pi-settings";
import { COMPANION } from "./decision";
import type { CompanionIo, CompanionRecord, Done } from "./ensure";

export function companionRecordPath(layout: Layout): string {
  return join(layout.config, "companion.json");
}

function recordText(record: CompanionRecord, version: string): string {
  return `${JSON.stringify({ schema: 1, ...record, shellVersion: version, at: new Date().toISOString() }, null, 2)}\n`;
}

/** Pi's own lines end with its reason; the last one, without colours, as one line. */
export function lastLine(result: Pick<RunResult, "stdout" | "stderr" | "code" | "signal">): string {
  const strip = (s: string) => s.replace(/\x1b\[[0-9;]*m/g, "");
  const lines = strip(`${result.stdout}\n${result.stderr}`)
    .split("\n")
    .map((l) => l.trim())
    .filter(Boolean);
  const last = lines.length > 0 ? redactText(lines[lines.length - 1]!).slice(0, 240) : "";
  const how = result.signal ? `it was stopped by ${result.signal}` : `it exited with code ${result.code}`;
  return last ? `${how}: ${last.replace(/\.$/, "")}` : how;
}

const MIGRATE_SCRIPT = `
import { pathToFileURL } from "node:url";
const [index, agentDir, from, to] = process.argv.slice(1);
const { SettingsManager, DefaultPackageManager } = await import(pathToFileURL(index).href);
const settingsManager = SettingsManager.create(agentDir, agentDir, { projectTrusted: false });
const fail = (what) => { console.error(what); process.exit(1); };
const loadErrors = settingsManager.drainErrors();
if (loadErrors.length > 0) fail("Pi could not read settings.json: " + loadErrors.map((e) => e.error?.message ?? String(e)).join("; "));
const entry = (settingsManager.getGlobalSettings().packages ?? []).find((p) => (typeof p === "string" ? p : p?.source) === from);
if (entry === undefined) fail(from + " is no longer in settings.json");
const packageManager = new DefaultPackageManager({ cwd: agentDir, agentDir, settingsManager });
packageManager.addSourceToSettings(to);
await settingsManager.flush();
const writeErrors = settingsManager.drainErrors();
if (writeErrors.length > 0) fail("Pi could not write settings.json: " + writeErrors.map((e) => e.error?.message ?? String(e)).join("; "));
`;

/** The real companion I/O for this install; `env` is the environment Pi gets (the user's, with Shell's variables). */
export function companionIo(install: PrivateInstall, env: Env, npmReady: boolean): CompanionIo {
  const { layout } = install;
  const settingsFile = join(layout.agent, "settings.json");
  // Our own operations: a preload of the user's must not break them (as for the --version probe).
  const piEnv: Env = { ...env };
  delete piEnv.NODE_OPTIONS;
  return {
    npmReady,
    notOurs: () => agentHomeIsOurs(layout),
    async readSettings() {
      const stat = await lstatOrNull(settingsFile);
      if (stat && !stat.isFile()) throw new Error("its settings.json is not a regular file");
      return stat ? readTextOrNull(settingsFile) : null;
    },
    async localName(source) {
      // Pi resolves a local source from the settings file's folder, ~ from the home folder.
      const path = source === "~" || source.startsWith("~/") ? join(layout.home, source.slice(1)) : isAbsolute(source) ? source : resolve(layout.agent, source);
      const manifest = await readTextOrNull(join(path, "package.json")).catch(() => null);
      if (manifest === null) return null;
      const name = (JSON.parse(manifest) as { name?: unknown }).name;
      return typeof name === "string" ? name : null;
    },
    async claim() {
      await ensureRealFolder(layout.config, 0o700);
      try {
        await fs.writeFile(companionRecordPath(layout), recordText({ status: "started" }, install.id), { flag: "wx", mode: 0o600 });
        return true;
      } catch (error) {
        if (errnoCode(error) === "EEXIST") return false;
        throw error;
      }
    },
    async record(record) {
      await ensureRealFolder(layout.config, 0o700);
      await writeFileAtomic(companionRecordPath(layout), recordText(record, install.id), 0o600);
    },
    async piInstall(source): Promise<Done> {
      const result = await run(layout.node, [install.piCli, "install", source], { env: piEnv, cwd: layout.agent, timeoutMs: 180_000 });
      return result.code === 0 ? { ok: true } : { ok: false, reason: `pi install ${lastLine(result)}` };
    },
    installedManifest: () => readTextOrNull(join(layout.agent, "npm", "node_modules", COMPANION, "package.json")),
    async migrate(from, to): Promise<Done> {
      const index = join(install.piRoot, "dist", "index.js");
      if (!(await lstatOrNull(index))?.isFile()) return { ok: false, reason: `Pi ${install.pi} has no package manager module at dist/index.js` };
      const result = await run(layout.node, ["--input-type=module", "-e", MIGRATE_SCRIPT, index, layout.agent, from, to], {
        env: piEnv,
        cwd: layout.agent,
        timeoutMs: 60_000,
      });
      return result.code === 0 ? { ok: true } : { ok: false, reason: `Pi's package manager ${lastLine(result)}` };
    },
  };
}
