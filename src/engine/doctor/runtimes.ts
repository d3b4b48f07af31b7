/**
 * The runtimes (issue 41): each pinned runtime's folder, its marker, and the
 * file the install runs from it (node and npm's entry, pnpm's entry, the
 * engram binary), and each file against the record written when it was
 * extracted from its pinned archive (src/install/runtime/file-record.ts):
 * a file gone, resized or with other bytes. Files not in the record (npm's
 * entry, written after publishing; what a user added) are not breakage.
 * Node, pnpm and Engram are ours to repair with the install's own
 * acquisition (src/install/runtime/): a marked folder whose file is gone or
 * changed is first moved aside with one rename (a staging name of this process, so a
 * kill leaves a leftover doctor removes, never a half folder with our
 * marker), then the pinned archive is downloaded from the install's source
 * (or --source, an offline bundle), checked against its pin and published
 * with one rename. A folder without our marker is never touched.
 */
import type { Env } from "../../core/environment";
import type { HttpClient } from "../../io/http-client";
import { tildify, type Layout } from "../../core/layout";
import { npmrcRegistry } from "../../core/npmrc";
import { parseSource, type Source } from "../../core/source";
import { lstatOrNull, readTextOrNull } from "../../io/files";
import { rename, rm } from "../../io/locked-retry";
import { stagingPath } from "../../io/staging";
import { rememberedSource } from "../../install/install-source";
import { configuredRegistry } from "../../install/npm-registry";
import { ensureRuntimes } from "../../install/runtime/index";
import { ensureEngram } from "../../install/runtime/engram";
import { hostRuntimeContext } from "../../install/runtime/host-context";
import { checkFileRecord } from "../../install/runtime/file-record";
import { differencesPhrase } from "../../core/file-record";
import type { StatusReport } from "../status/gather";
import { npmCliOf } from "../pi-settings";
import type { Check, FixAction } from "./plan";

export type OurRuntime = Extract<FixAction, { do: "runtime" }>["name"];
const OURS: readonly string[] = ["node", "pnpm", "engram"];

/** The files the install runs from a runtime: gone, and the runtime is incomplete. */
export function runtimeFiles(layout: Layout, name: OurRuntime): string[] {
  if (name === "node") return [layout.node, npmCliOf(layout)];
  if (name === "pnpm") return [layout.pnpmEntry];
  return [layout.engram];
}

export function runtimeDir(layout: Layout, name: OurRuntime): string {
  return name === "node" ? layout.nodeDir : name === "pnpm" ? layout.pnpmDir : layout.engramDir;
}

export async function runtimeChecks(layout: Layout, status: StatusReport, fixCommand: string, reinstall: string): Promise<Check[]> {
  const out: Check[] = [];
  for (const r of status.runtimes) {
    const id = `runtimes.${r.name}`;
    const ours = OURS.includes(r.name);
    const name = r.name as OurRuntime;
    const fix = (what: string): Check => ({
      group: "runtimes",
      id,
      status: r.required ? "broken" : "warn",
      line: `${r.name} ${r.version} ${what} (${r.folder})`,
      repair: { kind: "fix", sentence: `${fixCommand} downloads it again from the install's source (or --source), checked against its pin` },
      action: { do: "runtime", name, aside: r.state === "marked" },
    });
    if (r.state === "unmarked") {
      out.push({
        group: "runtimes",
        id,
        status: r.required ? "broken" : "warn",
        line: `${r.name} ${r.version} is not marked as ours (${r.folder}); it is never replaced`,
        repair: { kind: "command", sentence: `move ${r.folder} out of the Gentle Shell folder, then ${reinstall}` },
      });
    } else if (r.state === "missing") {
      out.push(ours ? fix("is missing") : { group: "runtimes", id, status: "warn", line: `${r.name} ${r.version} is not installed (${r.folder})` });
    } else {
      const found = ours ? await markedRuntime(layout, name) : { broken: null, checked: "" };
      if (found.broken) out.push(fix(found.broken));
      else out.push({ group: "runtimes", id, status: "ok", line: `${r.name} ${r.version} (${r.folder})${found.checked}` });
    }
  }
  return out;
}

async function firstMissing(files: string[]): Promise<string | null> {
  for (const f of files) if (!(await lstatOrNull(f))?.isFile()) return f;
  return null;
}

/**
 * A marked runtime of ours: `broken`, what is wrong with it (the rest of a
 * doctor line), or null; `checked`, how far its files were checked, for the
 * ok line. A folder without a record was published by an earlier
 * gentle-shell-setup: its files can only be checked for presence. That is
 * ok, not warn: nothing is known to be wrong, and neither `--fix` (which
 * downloads nothing just for a record) nor a reinstall (which reuses a
 * marked folder) would change it, so a warning would stand on every run
 * with nothing to do about it.
 */
async function markedRuntime(layout: Layout, name: OurRuntime): Promise<{ broken: string | null; checked: string }> {
  const gone = await firstMissing(runtimeFiles(layout, name));
  if (gone) return { broken: `is incomplete: ${tildify(gone, layout.home)} is gone`, checked: "" };
  const record = await checkFileRecord(runtimeDir(layout, name));
  if (record.kind === "unreadable") return { broken: "has an unreadable file record, so its files cannot be checked", checked: "" };
  if (record.kind === "checked" && record.differences.length) {
    return { broken: `differs from its pinned archive: ${differencesPhrase(record.differences)}`, checked: "" };
  }
  if (record.kind === "checked")
    return { broken: null, checked: `, ${record.files} file${record.files === 1 ? "" : "s"} as extracted from its pinned archive` };
  if (record.kind === "newer") return { broken: null, checked: ", files checked for presence only: a later gentle-shell-setup recorded them" };
  return { broken: null, checked: ", files checked for presence only: it was installed before gentle-shell-setup recorded them" };
}

/** The source a repair downloads from: --source, else the one the install remembers. */
export async function repairSource(layout: Layout, given: string | undefined): Promise<Source> {
  return parseSource(given ?? (await rememberedSource(layout)), "");
}

/** Acquire one runtime again, by the install's own recipe; the line of what was done. */
export async function repairRuntime(
  layout: Layout,
  env: Env,
  action: Extract<FixAction, { do: "runtime" }>,
  source: Source,
  http: HttpClient,
): Promise<string | null> {
  const dir = runtimeDir(layout, action.name);
  if (action.aside) {
    if (!(await lstatOrNull(dir))?.isDirectory()) return null;
    if (!(await markedRuntime(layout, action.name)).broken) return null;
    const aside = stagingPath(layout.runtime, "removing", { label: action.name });
    await rename(dir, aside);
    await rm(aside, { recursive: true, force: true });
  } else if (await lstatOrNull(dir)) return null;
  const ctx = hostRuntimeContext(layout, source, env, http);
  if (action.name === "engram") {
    const engram = await ensureEngram(ctx);
    if (!engram.available) throw new Error(`Engram could not be published: ${engram.reason}`);
  } else {
    const npmrc = (await readTextOrNull(layout.pnpm.npmrc)) ?? "";
    const official = async (): Promise<Source> => ({ kind: "official", registry: npmrcRegistry(npmrc, env) ?? (await configuredRegistry(layout, npmrc, env)) });
    await ensureRuntimes(ctx, { node: action.name === "node", pnpm: action.name === "pnpm", pnpmSource: source.kind === "official" ? official : source });
  }
  return `downloaded ${action.name} again into ${tildify(dir, layout.home)}, checked against its pin`;
}
