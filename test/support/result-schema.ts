/**
 * The --json document's schema (src/cli/schema/result.schema.json, with
 * status.schema.json for what status reports, doctor.schema.json for doctor), compiled
 * with ajv's draft 2020-12 validator in strict mode: validate(doc) gives the
 * errors, [] when the document fits.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";

const read = (name: string) => JSON.parse(readFileSync(join(import.meta.dirname, "..", "..", "src", "cli", "schema", name), "utf8"));
const ajv = new Ajv2020({ allErrors: true, strict: true });
ajv.addSchema(read("status.schema.json"));
ajv.addSchema(read("doctor.schema.json"));
const check = ajv.compile(read("result.schema.json"));

export function schemaErrors(document: unknown): string[] {
  if (check(document)) return [];
  return (check.errors ?? []).map((e) => `${e.instancePath || "/"} ${e.message ?? ""} ${JSON.stringify(e.params)}`);
}

/** The one line of stdout a --json run wrote, parsed; throws when stdout is anything else. */
export function onlyDocument(stdout: string): Record<string, unknown> {
  const lines = stdout.split("\n");
  if (lines.length !== 2 || lines[1] !== "") throw new Error(`stdout is not one JSON line: ${JSON.stringify(stdout.slice(0, 500))}`);
  return JSON.parse(lines[0]!) as Record<string, unknown>;
}
