/**
 * The real Output (core/errors.ts): lines to this process's stdout and
 * stderr, each masked by redactText (no URL credential or token is ever
 * printed). Bound at the edge (the engine's entry, the installer's CLI).
 */
import type { Output } from "../core/errors";
import { redactText } from "../core/secrets";

export const stdOutput: Output = {
  out: (line) => process.stdout.write(`${redactText(line)}\n`),
  err: (line) => process.stderr.write(`${redactText(line)}\n`),
};
