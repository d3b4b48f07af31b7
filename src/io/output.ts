/** The real Output (core/errors.ts): lines to this process's stdout and stderr. Bound at the edge (the engine's entry, the installer's CLI). */
import type { Output } from "../core/errors";

export const stdOutput: Output = {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
};
