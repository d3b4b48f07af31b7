/**
 * Leftovers of an interrupted run (issue 41), found by the install's own
 * rules (spec: "Ownership rules", Interrupted installs; src/io/staging.ts):
 *
 *  - versions/<id> whose marker reads `installing <id> <pid>` with its
 *    process gone, or claimed and left empty but for the marker's temporary
 *    file: an install, upgrade or update killed mid-way; removed by --fix,
 *    as the next install would;
 *  - staging entries (`.<kind>-<pid>-<8 hex>`, writeFileAtomic's
 *    `.<name>.tmp-<pid>-<8 hex>`) in the prefix's own folders whose process
 *    is gone; removed by --fix;
 *  - the installers' lock with its process gone; taken over and let go by
 *    --fix, as the next installer would;
 *  - the memory migration's marker: never removed by doctor (the spec's
 *    recovery is by hand), only named with its command.
 *
 * A live process's staging, version or lock is only named: doctor waits.
 */
import { promises as fs } from "node:fs";
import { join } from "../../core/native-path";
import { tildify, type Layout } from "../../core/layout";
import { isAlive } from "../../io/alive";
import { lstatOrNull, readTextOrNull } from "../../io/files";
import { versionState } from "../../install/version-install";
import { lockHolderPid } from "../../install/lock";
import { stagingOwner } from "../../io/staging";
import type { Check } from "./plan";
import { type DoctorProgram, doctorFix } from "../../core/repair-command";

const ID = /^[0-9A-Za-z][0-9A-Za-z.+-]*$/;

/** The folders of ours a run stages in. */
function stagingFolders(layout: Layout): string[] {
  return [layout.prefix, layout.bin, layout.runtime, layout.versions, layout.agentBin, layout.tmp, layout.config, layout.npm.prefix];
}

export function migrationMarkerPath(layout: Layout): string {
  return join(layout.config, "engram-migration.json");
}

export async function leftoverChecks(layout: Layout, program: DoctorProgram): Promise<Check[]> {
  const out: Check[] = [];
  const show = (p: string) => tildify(p, layout.home);
  const fix = doctorFix(program);
  const ids = (await fs.readdir(layout.versions).catch(() => [] as string[])).filter((id) => ID.test(id));
  for (const id of ids) {
    const state = await versionState(layout, id);
    const path = join(layout.versions, id);
    if (state.kind === "abandoned" || (state.kind === "installing" && !state.alive)) {
      const pid = state.kind === "installing" ? state.pid : null;
      const why = pid === null ? "claimed and left empty" : `left by process ${pid}, which is gone`;
      out.push({
        group: "leftovers",
        id: `leftovers.version:${id}`,
        status: "broken",
        line: `versions/${id} is an interrupted install (${why})`,
        repair: { kind: "fix", sentence: `${fix} removes it, as the next install would` },
        action: { do: "remove", path, pid },
      });
    } else if (state.kind === "installing") {
      out.push({ group: "leftovers", id: `leftovers.version:${id}`, status: "warn", line: `versions/${id} is being installed by process ${state.pid}` });
    }
  }
  for (const dir of stagingFolders(layout)) {
    const stat = await lstatOrNull(dir);
    if (!stat?.isDirectory()) continue;
    for (const name of await fs.readdir(dir).catch(() => [] as string[])) {
      const pid = stagingOwner(name);
      if (pid === null || pid === process.pid) continue;
      const path = join(dir, name);
      if (isAlive(pid)) {
        out.push({ group: "leftovers", id: `leftovers.staging:${show(path)}`, status: "warn", line: `${show(path)} is in use by process ${pid}` });
        continue;
      }
      out.push({
        group: "leftovers",
        id: `leftovers.staging:${show(path)}`,
        status: "broken",
        line: `${show(path)} was left by an interrupted run (process ${pid} is gone)`,
        repair: { kind: "fix", sentence: `${fix} removes it` },
        action: { do: "remove", path, pid },
      });
    }
  }
  const lockText = (await lstatOrNull(layout.lock))?.isFile() ? await readTextOrNull(layout.lock) : null;
  if (lockText !== null) {
    const pid = lockHolderPid(lockText);
    if (isAlive(pid))
      out.push({
        group: "leftovers",
        id: "leftovers.lock",
        status: "warn",
        line: `an installer or upgrade (process ${pid}) is working in ${show(layout.prefix)}; run doctor again when it is done`,
      });
    else
      out.push({
        group: "leftovers",
        id: "leftovers.lock",
        status: "broken",
        line: `the installers' lock was left by process ${pid}, which is gone`,
        repair: { kind: "fix", sentence: `${fix} takes it over and lets it go, as the next installer would` },
        action: { do: "lock" },
      });
  }
  const breaker = `${layout.lock}.break`;
  if (await lstatOrNull(breaker)) {
    const pid = lockHolderPid(await readTextOrNull(breaker));
    if (!isAlive(pid))
      out.push({
        group: "leftovers",
        id: "leftovers.lock-break",
        status: "broken",
        line: `${show(breaker)} was left by process ${pid}, which is gone`,
        repair: { kind: "fix", sentence: `${fix} removes it` },
        action: { do: "remove", path: breaker, pid },
      });
  }
  if (await lstatOrNull(migrationMarkerPath(layout))) {
    out.push({
      group: "leftovers",
      id: "leftovers.memory-migration",
      status: "broken",
      line: "an interrupted memory migration is recorded in config/engram-migration.json (memory stays off until it is resolved)",
      repair: {
        kind: "command",
        sentence: "keep Engram clients stopped and run gentle-shell memory migrate to see what it records and how to roll back; do not just remove the marker",
      },
    });
  }
  if (!out.length)
    out.push({
      group: "leftovers",
      id: "leftovers.none",
      status: "ok",
      line: "nothing left by an interrupted install, upgrade, uninstall or memory migration",
    });
  return out;
}
