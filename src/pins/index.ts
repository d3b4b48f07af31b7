/**
 * The pins this build binds. The release build compiles `productionPins`;
 * `npm run build -- --pins <file.json>` makes a test build whose esbuild
 * plugin swaps `./compiled` for that JSON file. Nothing at run time (no flag,
 * no variable) can change which pins are in force.
 */
import type { Pins } from "./types";
import { compiledPins } from "./compiled";

export function buildPins(): Pins {
  return compiledPins;
}
export type { Pins, FilePin, Target, ReleaseKey } from "./types";
