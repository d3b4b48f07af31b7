/**
 * The installer's own script, which it writes into each version as the engine.
 * In the single-executable it is the embedded asset `engine.cjs`; run as a
 * plain script (tests, `node dist/gentle-shell-setup.cjs`) it is that file.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";

declare const __filename: string | undefined;

export function isSingleExecutable(): boolean {
  try {
    const req = createRequire(process.execPath);
    const sea = req("node:sea") as { isSea(): boolean };
    return sea.isSea();
  } catch {
    return false;
  }
}

export function ownScript(): string {
  if (isSingleExecutable()) {
    const req = createRequire(process.execPath);
    const sea = req("node:sea") as { getAsset(key: string, encoding: string): string };
    return sea.getAsset("engine.cjs", "utf8");
  }
  if (typeof __filename === "string" && __filename.endsWith(".cjs")) return readFileSync(__filename, "utf8");
  throw new Error("the engine script is only available from a built gentle-shell-setup");
}
