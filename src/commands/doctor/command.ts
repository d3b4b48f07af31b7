/**
 * `gentle-shell doctor [--fix] [--json]` and the installer's
 * `gentle-shell-setup doctor` (issue 41): the checks of ./gather.ts, then,
 * with --fix, the repairs of ./fix.ts and the checks again, printed by
 * ./plan.ts. Without --fix nothing is written.
 */
import { resolve } from "node:path";
import { EXIT, type Output } from "../../core/errors";
import { resultDocument, resultText } from "../../core/json-result";
import { tildify } from "../../core/layout";
import { doctorDocument, doctorExitCode, doctorLines, type DoctorReport } from "./plan";
import { FixRefused, runFixes } from "./fix";
import { checkSourceReachable } from "../../install/source-reachable";
import { gatherDoctor, type DoctorContext } from "./gather";
import { type DoctorProgram, doctorFix } from "../../core/repair-command";
import type { Layout } from "../../core/layout";
import type { Host } from "../../io/host";
import { hostStatusProbes } from "../status/probes";

export interface DoctorArgs {
  json: boolean;
  fix: boolean;
  /** Where --fix downloads a runtime from: a mirror or an offline bundle; default the install's own source. */
  source?: string;
}

/**
 * `--source` without `--fix` is refused (issue 47): doctor downloads only
 * when it repairs, so a source given to a check would be silently unused.
 */
export function sourceWithoutFix(args: DoctorArgs, program: DoctorProgram): string | null {
  if (args.source === undefined || args.fix) return null;
  return `--source is used only with --fix (doctor downloads nothing when it only checks); run ${doctorFix(program, args.source)}`;
}

/** The report: the checks, and with --fix the repairs done and the checks after them. A refused --fix is its sentence. */
export async function doctorReport(ctx: DoctorContext, given: DoctorArgs): Promise<DoctorReport | { refused: string }> {
  // A folder --source is read from where the command was started.
  const args = given.source !== undefined && !/^https?:\/\//i.test(given.source) ? { ...given, source: resolve(given.source) } : given;
  const prefix = tildify(ctx.layout.prefix, ctx.layout.home);
  let { status, checks } = await gatherDoctor(ctx);
  if (!status.installed) return { installed: false, prefix, checks: [], repaired: [] };
  let repaired: string[] = [];
  if (args.fix) {
    try {
      // A --source that cannot be read is said before anything is repaired.
      if (args.source !== undefined) await checkSourceReachable(args.source, {}, ctx).catch((error: Error) => Promise.reject(new FixRefused(error.message)));
      repaired = await runFixes(ctx.layout, ctx, checks, args.source);
    } catch (error) {
      if (error instanceof FixRefused) return { refused: error.message };
      throw error;
    }
    if (repaired.length) ({ checks } = await gatherDoctor(ctx));
  }
  return { installed: true, prefix, checks, repaired };
}

export async function runDoctor(ctx: DoctorContext, args: DoctorArgs, io: Pick<Output, "out" | "err">): Promise<number> {
  const report = await doctorReport(ctx, args);
  if ("refused" in report) {
    if (args.json) io.out(resultText(resultDocument("doctor", EXIT.failure, report.refused)).trimEnd());
    else io.err(`${ctx.program}: ${report.refused}`);
    return EXIT.failure;
  }
  if (args.json) io.out(resultText(doctorDocument(report)).trimEnd());
  else for (const line of doctorLines(report, doctorFix(ctx.program))) io.out(line);
  return doctorExitCode(report);
}

/** A usage error of `doctor --json`: still one document on stdout. */
export function doctorUsageDocument(message: string): string {
  return resultText(resultDocument("doctor", EXIT.usage, message)).trimEnd();
}

/**
 * doctor as both programs run it (`gentle-shell doctor` from the launch, `gentle-shell-setup doctor` from citty):
 * its context read from the Host and the install's layout. Under the installer's --json (a Host with a document,
 * src/cli/json.ts) the report goes into the document's fields; otherwise doctor prints its lines, or under the
 * launcher's --json its own document.
 */
export async function doctorOn(host: Host, layout: Layout, program: DoctorProgram, args: DoctorArgs): Promise<number> {
  const { pins, env, http, target } = host;
  const context: DoctorContext = { layout, pins, env, probes: hostStatusProbes(layout, env), program, http, target };
  const document = host.document;
  if (!document) return runDoctor(context, args, host);
  const report = await doctorReport(context, args);
  if ("refused" in report) {
    document.error = report.refused;
    return EXIT.failure;
  }
  const doc = doctorDocument(report);
  document.fields.doctor = doc.doctor;
  if (typeof doc.error === "string") document.error = doc.error;
  return Number(doc.exitCode);
}
