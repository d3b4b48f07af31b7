/**
 * `doctor`'s plan (issue 41): a list of checks, each one line in a group,
 * ok, warn or broken, with what repairs it: `--fix` (a repair of ours,
 * under the install's own rules) or a command the user runs (one sentence,
 * the exact command). The lines a person reads, the one JSON document a
 * script reads, and the exit code: 0 healthy (warnings too), 1 broken.
 * Pure: the checks are gathered by ./gather.ts, the repairs done by ./fix.ts.
 */
import { EXIT } from "../../core/errors";
import { resultDocument } from "../../core/json-result";

export const DOCTOR_GROUPS = ["install", "launcher", "runtimes", "pi", "leftovers", "path", "machine"] as const;
export type DoctorGroup = (typeof DOCTOR_GROUPS)[number];
export type CheckStatus = "ok" | "warn" | "broken";

/** What `--fix` does for a check: data, so the plan stays pure (./fix.ts acts on it). */
export type FixAction =
  | { do: "launcher" }
  | { do: "guard" }
  | { do: "profile-line"; file: string; line: string; create: boolean }
  | { do: "link"; path: string; target: string }
  | { do: "remove"; path: string; pid: number | null }
  | { do: "lock" }
  | { do: "npm-command" }
  /** Write config/setup.json back: setup's own work (Engram published) is in place, only its record is gone. */
  | { do: "setup-marker"; version: string }
  /** Acquire a runtime of ours again; `aside`: its marked folder is incomplete and is moved aside first. */
  | { do: "runtime"; name: "node" | "pnpm" | "engram"; aside: boolean };

export interface Repair {
  /** fix: `doctor --fix` does it; command: the user runs `sentence`'s command. */
  kind: "fix" | "command";
  /** One sentence: what --fix does, or the exact command to run. */
  sentence: string;
}

export interface Check {
  group: DoctorGroup;
  /** Stable within a run: "launcher.bytes", "leftovers.version:4.1.0-0.70.2". */
  id: string;
  status: CheckStatus;
  /** One line, home as ~. */
  line: string;
  repair?: Repair;
  /** Only for a repair of kind fix; never in the document. */
  action?: FixAction;
}

export interface DoctorReport {
  installed: boolean;
  /** The prefix, home as ~. */
  prefix: string;
  checks: Check[];
  /** What --fix did, one line each (empty without --fix, or when nothing needed it). */
  repaired: string[];
}

export function isHealthy(checks: readonly Check[]): boolean {
  return checks.every((c) => c.status !== "broken");
}

export function doctorExitCode(report: DoctorReport): number {
  return isHealthy(report.checks) ? EXIT.ok : EXIT.failure;
}

/** The checks in the groups' order, each group's in the order gathered. */
export function grouped(checks: readonly Check[]): Array<[DoctorGroup, Check[]]> {
  return DOCTOR_GROUPS.map((g) => [g, checks.filter((c) => c.group === g)] as [DoctorGroup, Check[]]).filter(([, cs]) => cs.length > 0);
}

function count(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** The closing line. `fixCommand`: how this program's --fix is written (gentle-shell doctor --fix). */
export function closingLine(report: DoctorReport, fixCommand: string): string {
  const { checks } = report;
  if (!report.installed) return `Nothing to check: Gentle Shell is not installed in ${report.prefix}.`;
  const broken = checks.filter((c) => c.status === "broken").length;
  const warn = checks.filter((c) => c.status === "warn").length;
  const fixable = checks.filter((c) => c.status !== "ok" && c.repair?.kind === "fix").length;
  const tally = `${count(checks.length, "check")}: ${broken} broken, ${count(warn, "warning")}`;
  const fix = fixable ? `; ${fixCommand} repairs ${fixable === broken + warn ? (fixable === 1 ? "it" : "them all") : `${fixable} of them`}` : "";
  if (broken) return `Gentle Shell in ${report.prefix} is broken (${tally})${fix}.`;
  return `Gentle Shell in ${report.prefix} is healthy (${tally})${fix}.`;
}

const MARK: Record<CheckStatus, string> = { ok: "ok", warn: "warn", broken: "broken" };

/** One line per check under its group's name, each repair's sentence under its check, then the closing line. */
export function doctorLines(report: DoctorReport, fixCommand: string): string[] {
  const lines: string[] = [];
  for (const line of report.repaired) lines.push(line.startsWith("could not repair: ") ? line : `repaired: ${line}`);
  for (const [group, checks] of grouped(report.checks)) {
    lines.push(group);
    for (const c of checks) {
      lines.push(`  ${MARK[c.status].padEnd(7)}${c.line}`);
      if (c.status !== "ok" && c.repair) lines.push(`         ${c.repair.kind === "fix" ? "fix" : "run"}: ${c.repair.sentence}`);
    }
  }
  lines.push(closingLine(report, fixCommand));
  return lines;
}

/** The document's doctor field: the checks without their internal actions. */
export function doctorField(report: DoctorReport): Record<string, unknown> {
  return {
    installed: report.installed,
    healthy: isHealthy(report.checks),
    prefix: report.prefix,
    checks: report.checks.map(({ action: _action, ...check }) => check),
    repaired: report.repaired,
  };
}

export function doctorDocument(report: DoctorReport): Record<string, unknown> {
  const code = doctorExitCode(report);
  const broken = report.checks.filter((c) => c.status === "broken").map((c) => c.line);
  return resultDocument("doctor", code, code === EXIT.ok ? null : `Gentle Shell in ${report.prefix} is broken: ${broken.join("; ")}`, {
    doctor: doctorField(report),
  });
}
