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
import { tildify, type Layout } from "../../core/layout";
import { npmrcRegistry } from "../../core/npmrc";
import { parseSource, type Source } from "../../core/source";
import { lstatOrNull, readTextOrNull } from "../../io/files";
import { rememberedSource } from "../../install/remembered-source";
import { configuredRegistry } from "../../install/npm-registry";
import { ensureRuntimes } from "../../install/runtime/index";
import { ensureEngram } from "../../install/runtime/engram";
import { hostRuntimeContext, type RuntimeHost } from "../../install/runtime/host-context";
import { moveRuntimeAside, runtimeDir, runtimeHealth, type OurRuntime } from "../../install/runtime/verify";
import type { StatusReport } from "../status/gather";
import type { Check, FixAction } from "./plan";

export { runtimeDir, runtimeFiles, type OurRuntime } from "../../install/runtime/verify";
const OURS: readonly string[] = ["node", "pnpm", "engram"];

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
      const found = ours ? await runtimeHealth(layout, name) : { broken: null, unrecorded: null, checked: "" };
      if (found.broken) out.push(fix(found.broken));
      else if (found.unrecorded) out.push({ ...fix(found.unrecorded), status: "warn" });
      else out.push({ group: "runtimes", id, status: "ok", line: `${r.name} ${r.version} (${r.folder})${found.checked}` });
    }
  }
  return out;
}

/** The source a repair downloads from: --source, else the one the install remembers. */
export async function repairSource(layout: Layout, given: string | undefined): Promise<Source> {
  return parseSource(given ?? (await rememberedSource(layout)), "");
}

/** Acquire one runtime again, by the install's own recipe; the line of what was done. */
export async function repairRuntime(layout: Layout, host: RuntimeHost, action: Extract<FixAction, { do: "runtime" }>, source: Source): Promise<string | null> {
  const { env } = host;
  const dir = runtimeDir(layout, action.name);
  if (action.aside) {
    if (!(await lstatOrNull(dir))?.isDirectory()) return null;
    const health = await runtimeHealth(layout, action.name);
    if (!health.broken && !health.unrecorded) return null;
    await moveRuntimeAside(layout, action.name, env);
  } else if (await lstatOrNull(dir)) return null;
  const ctx = hostRuntimeContext(host, layout, source);
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
