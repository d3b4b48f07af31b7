#!/usr/bin/env node
/**
 * Prints the release's one Pi pin (src/pins/production.ts, release.pi) for
 * release.yml, or fails in one sentence when it is not recorded yet.
 *
 *   node build/release-pi.mjs
 */
import { productionPins } from "./toolchain.mjs";

const pi = (await productionPins()).release.pi;
if (!/^\d+\.\d+\.\d+$/.test(pi ?? "")) {
  process.stderr.write("release-pi: no exact Pi is recorded in src/pins/production.ts (release.pi); record the Pi this release pins, then tag again\n");
  process.exit(1);
}
process.stdout.write(`${pi}\n`);
