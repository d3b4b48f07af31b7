/**
 * `status`'s two faces (issue 14): short aligned lines for a person, or the
 * one JSON document (src/core/json-result.ts) for a script; and its exit
 * code: 0 for a healthy install and for none at all (nothing is wrong with
 * a machine without Gentle Shell; the document says installed: false), 1
 * for a broken one. Pure.
 */
import { EXIT } from "../../core/errors";
import { resultDocument } from "../../core/json-result";
import type { StatusReport, VersionInfo } from "./gather";
import { updatesRow } from "./updates";

export const NOT_INSTALLED = "Gentle Shell is not installed here";

export function statusExitCode(report: StatusReport): number {
  return !report.installed || report.healthy ? EXIT.ok : EXIT.failure;
}

function version(v: VersionInfo): string {
  if (v.state !== "valid") return `${v.id} (${v.state})`;
  return v.shell && v.pi ? `${v.id} (gentle-pi ${v.shell}, Pi ${v.pi})` : `${v.id} (no release manifest)`;
}

export function statusLines(report: StatusReport): string[] {
  if (!report.installed) return [`${NOT_INSTALLED} (${report.prefix} does not exist).`];
  const rows: Array<[string, string]> = [];
  rows.push(["active", report.active ? version(report.active) : "none (no current)"]);
  rows.push(["kept", report.kept.length ? report.kept.map(version).join(", ") : "none"]);
  rows.push(["runtimes", report.runtimes.map((r) => `${r.name} ${r.version} ${r.state === "marked" ? "ok" : r.state}`).join(", ")]);
  const l = report.launcher;
  if (l) {
    const check = l.check === "passed" ? `checked: ${l.detail}` : l.check === "failed" ? `check failed: ${l.detail}` : l.detail || "not checked";
    rows.push(["launcher", l.file === "ours" ? `${l.path}, ${check}` : `${l.path} ${l.file}`]);
  }
  const p = report.path;
  if (p) {
    const entry =
      p.receipt === "valid"
        ? `${p.where} (${p.kind}), receipt valid`
        : p.receipt === "invalid"
          ? `receipt invalid: ${p.reason}`
          : "no entry of ours (no receipt)";
    rows.push(["PATH", `${entry}; ${p.onPath ? "on" : "not on"} this terminal's PATH`]);
  }
  if (report.source) rows.push(["source", `${report.source.source}${report.source.registry ? `, registry ${report.source.registry}` : ""}`]);
  if (report.updates) rows.push(["updates", updatesRow(report.updates)]);
  const m = report.memory;
  rows.push(["memory", m.probed ? `${m.memory} (${m.reason})` : "not checked (--memory checks the local Engram server)"]);
  const width = Math.max(...rows.map(([k]) => k.length)) + 2;
  const lines = [`Gentle Shell in ${report.prefix}: ${report.healthy ? "healthy" : "broken"}`, ...rows.map(([k, v]) => `  ${k.padEnd(width)}${v}`)];
  if (m.probed && m.notice) lines.push(`  ${m.notice}`);
  for (const problem of report.problems) lines.push(`  problem: ${problem}`);
  if (!report.healthy) lines.push("Run the Gentle Shell installer again to repair it; finished steps are reused.");
  return lines;
}

export function statusDocument(report: StatusReport): Record<string, unknown> {
  const code = statusExitCode(report);
  return resultDocument("status", code, code === EXIT.ok ? null : `Gentle Shell in ${report.prefix} is broken: ${report.problems.join("; ")}`, {
    status: report,
  });
}
