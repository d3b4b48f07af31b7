/**
 * `gentle-shell status [--json] [--memory | --no-memory]` and the installer's
 * `gentle-shell-setup status`: the report of ./gather.ts, printed by
 * ./render.ts. The memory decision probes the loopback Engram endpoint, so
 * it is read by default for a person and, under --json, only with --memory
 * (a fleet's script must not touch a server by asking for the state).
 */
import type { Env } from "../../core/environment";
import { EXIT, type Output } from "../../core/errors";
import { resultDocument, resultText } from "../../core/json-result";
import type { Layout } from "../../core/layout";
import type { Pins } from "../../pins/types";
import { gatherStatus, type StatusProbes, type StatusReport } from "./gather";
import { statusDocument, statusExitCode, statusLines } from "./render";
import type { Host } from "../../io/host";
import { hostStatusProbes } from "./probes";

export interface StatusArgs {
  json: boolean;
  /** Probe Engram; default: yes for lines, no for --json. */
  memory?: boolean;
}

/** The engine's own parse (the installer's CLI parses with citty); a string is the usage error. */
export function parseStatusArgs(args: readonly string[]): StatusArgs | string {
  const out: StatusArgs = { json: false };
  for (const arg of args) {
    if (arg === "--json") out.json = true;
    else if (arg === "--memory") out.memory = true;
    else if (arg === "--no-memory") out.memory = false;
    else
      return `unknown ${arg.startsWith("-") ? "option" : "argument"} ${JSON.stringify(arg)} for gentle-shell status; it takes --json, --memory and --no-memory`;
  }
  return out;
}

export type StatusContext = { layout: Layout; pins: Pins; env: Env; probes: StatusProbes };

/** The report for these arguments (the memory decision only when they ask for it). */
export function statusReport(context: StatusContext, args: StatusArgs): Promise<StatusReport> {
  return gatherStatus({ ...context, memory: args.memory ?? !args.json });
}

export async function runStatus(context: StatusContext, args: StatusArgs, io: Pick<Output, "out">): Promise<number> {
  const report = await statusReport(context, args);
  if (args.json) io.out(resultText(statusDocument(report)).trimEnd());
  else for (const line of statusLines(report)) io.out(line);
  return statusExitCode(report);
}

/** A usage error of `status --json`: still one document on stdout. */
export function statusUsageDocument(message: string): string {
  return resultText(resultDocument("status", EXIT.usage, message)).trimEnd();
}

/**
 * status as both programs run it: its context read from the Host and the install's layout; under the installer's
 * --json (a Host with a document, src/cli/json.ts) the report goes into the document's fields, otherwise it prints.
 */
export async function statusOn(host: Host, layout: Layout, args: StatusArgs): Promise<number> {
  const context: StatusContext = { layout, pins: host.pins, env: host.env, probes: hostStatusProbes(layout, host.env) };
  const document = host.document;
  if (!document) return runStatus(context, args, host);
  const doc = statusDocument(await statusReport(context, args));
  document.fields.status = doc.status;
  if (typeof doc.error === "string") document.error = doc.error;
  return Number(doc.exitCode);
}
