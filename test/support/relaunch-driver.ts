/**
 * A small program that reopens a "launcher" the way the startup offer does
 * after Update now (src/engine/relaunch.ts, the real adapter), bundled by
 * esbuild so plain Node runs it:
 *
 *   node <driver> <platform> <launcher> [args...]   # exits with the launcher's code, or 99 when reopening failed
 *
 * GSS_DRIVER_EXEC=1 lets it use execve where this Node has one.
 */
import { buildSync } from "esbuild";
import { join } from "pathe";
import { REPO_ROOT } from "./paths";

const SOURCE = `
import { processRelaunchAdapter, relaunch, relaunchPlan } from "./src/engine/relaunch";
const [platform, launcher, ...args] = process.argv.slice(2);
const adapter = processRelaunchAdapter();
const canExec = process.env.GSS_DRIVER_EXEC === "1" && adapter.execve !== undefined;
const plan = relaunchPlan({ platform: platform as "linux" | "darwin" | "win32", launcher: launcher!, args, env: process.env, canExec });
relaunch(plan, adapter).then((result) => {
  if ("failed" in result) {
    process.stderr.write("reopening failed: " + result.failed + "\\n");
    process.exit(99);
  }
  process.exit(result.code);
});
`;

/** Bundle the driver into `dir`; returns its path. */
export function buildRelaunchDriver(dir: string): string {
  const outfile = join(dir, "relaunch-driver.cjs");
  buildSync({
    stdin: { contents: SOURCE, resolveDir: REPO_ROOT, loader: "ts", sourcefile: "relaunch-driver.ts" },
    bundle: true,
    platform: "node",
    format: "cjs",
    target: "node20",
    outfile,
    logLevel: "silent",
  });
  return outfile;
}
