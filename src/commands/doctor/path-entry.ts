/**
 * The PATH entry our receipt records (issue 41; spec "PATH", "Persisted
 * receipt"): the line is still in its profile, or the ~/.local/bin link still
 * names our launcher, and this terminal's PATH reaches our bin. A line or
 * link gone while the receipt is ours is put back by --fix (./fix.ts), with
 * the install's own append; a line edited by hand, or anything else now at
 * the link's path, is only named.
 */
import { promises as fs } from "node:fs";
import { tildify } from "../../core/layout";
import { holdsLine, markedLines } from "../../path/shells";
import { lstatOrNull, readTextOrNull } from "../../io/files";
import type { StatusReport } from "../status/gather";
import type { DoctorContext } from "./context";
import type { Check } from "./plan";
import { doctorFix } from "../../core/repair-command";

export async function pathChecks(ctx: DoctorContext, status: StatusReport): Promise<Check[]> {
  const { layout } = ctx;
  const p = status.path;
  if (!p) return [];
  const show = (x: string) => tildify(x, layout.home);
  const fix = doctorFix(ctx.program);
  const out: Check[] = [];
  const read = (() => {
    try {
      return ctx.probes.readReceipt();
    } catch {
      return null;
    }
  })();
  if (read?.status !== "valid") {
    if (p.receipt === "invalid")
      out.push({
        group: "path",
        id: "path.receipt",
        status: "warn",
        line: `path-entry.json is not ours to use: ${p.reason}`,
        repair: { kind: "command", sentence: `remove ${p.where ?? "that entry"} by hand if you no longer want it` },
      });
    else out.push({ group: "path", id: "path.receipt", status: "ok", line: "no PATH entry of ours to check (no receipt: the installer added none)" });
  } else {
    const r = read.receipt;
    if (r.kind === "profile") {
      const stat = await lstatOrNull(r.path);
      const text = stat?.isFile() ? await readTextOrNull(r.path) : null;
      if (text !== null && holdsLine(text, r.line)) out.push({ group: "path", id: "path.entry", status: "ok", line: `our PATH line is in ${show(r.path)}` });
      else if (text !== null && markedLines(text).length)
        out.push({ group: "path", id: "path.entry", status: "warn", line: `our PATH line in ${show(r.path)} was edited by hand; it is left as it is` });
      else if (stat && !stat.isFile())
        out.push({
          group: "path",
          id: "path.entry",
          status: "broken",
          line: `${show(r.path)} is no longer a regular file, so our PATH line is not there`,
          repair: { kind: "command", sentence: `add this line to your shell's profile: ${r.line}` },
        });
      else if (!stat && !r.create)
        out.push({
          group: "path",
          id: "path.entry",
          status: "broken",
          line: `${show(r.path)}, which held our PATH line, is gone`,
          repair: { kind: "command", sentence: `add this line to your shell's profile: ${r.line}` },
        });
      else
        out.push({
          group: "path",
          id: "path.entry",
          status: "broken",
          line: `our PATH line is missing from ${show(r.path)}`,
          repair: { kind: "fix", sentence: `${fix} appends it again` },
          action: { do: "profile-line", file: r.path, line: r.line, create: !stat },
        });
    } else if (r.kind === "link") {
      const stat = await lstatOrNull(r.path);
      const target = stat?.isSymbolicLink() ? await fs.readlink(r.path).catch(() => null) : null;
      if (target === r.target) out.push({ group: "path", id: "path.entry", status: "ok", line: `the link ${show(r.path)} names our launcher` });
      else if (!stat)
        out.push({
          group: "path",
          id: "path.entry",
          status: "broken",
          line: `the link ${show(r.path)} to our launcher is missing`,
          repair: { kind: "fix", sentence: `${fix} makes it again` },
          action: { do: "link", path: r.path, target: r.target },
        });
      else
        out.push({
          group: "path",
          id: "path.entry",
          status: "broken",
          line: `${show(r.path)} is no longer our link to the launcher; it is left as it is`,
          repair: { kind: "command", sentence: `move it away, then run ${fix}` },
        });
    } else {
      out.push({ group: "path", id: "path.entry", status: "ok", line: `our entry ${p.where} is recorded` });
    }
  }
  out.push(
    p.onPath
      ? { group: "path", id: "path.here", status: "ok", line: "this terminal's PATH reaches our launcher" }
      : {
          group: "path",
          id: "path.here",
          status: "warn",
          line: `this terminal's PATH does not reach ${show(layout.bin)}`,
          repair: { kind: "command", sentence: "open a new terminal (the PATH change reaches new ones)" },
        },
  );
  return out;
}
