/**
 * The real Output (core/errors.ts): lines to this process's stdout and
 * stderr, each masked by redactText (no URL credential or token is ever
 * printed). Bound at the edge (the engine's entry, the installer's CLI).
 */
import type { Output } from "../core/errors";
import { channel } from "./console";

export const stdOutput: Output = {
  out: (line) => channel.log(line),
  err: (line) => channel.error(line),
};
