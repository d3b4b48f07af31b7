/**
 * --json for `install`, `bundle`, `status` and `uninstall` (issue 14): the command runs
 * with its lines on stderr (the Host's documentStdout, src/io/host.ts), fills in its
 * fields, and one document (src/core/json-result.ts, schema in
 * ./schema/result.schema.json) is written on stdout at the end, whether it
 * succeeded, failed, or was refused as a usage error. A thrown error goes on
 * to src/main.ts, which prints its sentence on stderr and sets the exit code;
 * otherwise the command's own exit code is the document's and is returned.
 */
import { EXIT, isBug, UserError } from "../core/errors";
import { tildifyText } from "../core/layout";
import { resultDocument, resultText, type ResultCommand } from "../core/json-result";
import type { Host } from "../io/host";

const JSON_COMMANDS: readonly ResultCommand[] = ["install", "bundle", "status", "uninstall", "doctor"];

/** The command --json asks a document of (the first argument is the command), or null: no --json, help, or another command. */
export function jsonCommand(args: readonly string[]): ResultCommand | null {
  const end = args.indexOf("--");
  const own = end === -1 ? args : args.slice(0, end);
  if (!own.includes("--json") || own.some((a) => a === "--help" || a === "-h")) return null;
  return (JSON_COMMANDS as readonly string[]).includes(own[0] ?? "") ? (own[0] as ResultCommand) : null;
}

/** A failure the command reports without throwing (a failed step, a declined prompt): the document's error, under --json. */
export function documentError(host: Host, message: string): void {
  if (host.document) host.document.error = message;
}

/**
 * Runs `body` with the host in --json mode, then writes the one document, whether the body succeeded or threw;
 * resolves to the body's exit code.
 */
export async function runWithJson(command: ResultCommand, host: Host, body: (host: Host) => Promise<number>): Promise<number> {
  const jsonHost = host.withMode({ json: true });
  const run = jsonHost.document!;
  const stdout = host.documentStdout();
  let thrown: unknown = null;
  let failed = false;
  let code: number = EXIT.ok;
  try {
    code = await body(jsonHost);
  } catch (error) {
    thrown = error;
    failed = true;
  } finally {
    stdout.restore();
  }
  const exitCode = failed ? (thrown instanceof UserError ? thrown.exitCode : isBug(thrown) ? EXIT.bug : EXIT.failure) : code;
  const message = failed
    ? thrown instanceof Error
      ? thrown.message
      : String(thrown)
    : (run.error ?? (exitCode === EXIT.ok || exitCode === EXIT.unchanged ? null : `exit code ${exitCode}`));
  await stdout.write(resultText(resultDocument(command, exitCode, message === null ? null : tildifyText(message, host.home), run.fields)));
  if (failed) throw thrown;
  return exitCode;
}
