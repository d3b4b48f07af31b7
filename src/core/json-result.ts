/**
 * The one JSON document a command writes on stdout under --json (issue 14),
 * the same envelope for every command: which command, whether it did what
 * was asked (no error; a dry run or a healthy status is ok),
 * its exit code and its one-sentence error, then the command's own fields.
 * Its JSON Schema is src/cli/schema/result.schema.json (with status.schema.json). Pure.
 */
import { redactText } from "./secrets";

export const RESULT_SCHEMA_VERSION = 1;

export type ResultCommand = "install" | "bundle" | "status" | "uninstall" | "doctor";

export interface ResultEnvelope {
  schema: typeof RESULT_SCHEMA_VERSION;
  command: ResultCommand;
  ok: boolean;
  exitCode: number;
  /** Why the command failed, one sentence, secrets masked; null when it did not. */
  error: string | null;
}

export function resultDocument(
  command: ResultCommand,
  exitCode: number,
  error: string | null,
  fields: Record<string, unknown> = {},
): ResultEnvelope & Record<string, unknown> {
  return { schema: RESULT_SCHEMA_VERSION, command, ok: error === null, exitCode, error: error === null ? null : redactText(error), ...fields };
}

/** The document's text: one line, so a script can read it with one line read, then a newline. */
export function resultText(document: object): string {
  return `${JSON.stringify(document)}\n`;
}
