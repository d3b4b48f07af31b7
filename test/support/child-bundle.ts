/**
 * A child script for tests that must run our TypeScript in another process
 * (to kill it, or to run it on our Node 24 with its own flags): the source is
 * bundled with esbuild into one CommonJS file, resolved from test/integration
 * so `../../src/...` imports work as they read.
 */
import { build } from "esbuild";
import { join } from "node:path";
import { REPO_ROOT } from "./paths";

export async function bundleChild(source: string, outfile: string, name: string): Promise<string> {
  await build({
    stdin: { contents: source, resolveDir: join(REPO_ROOT, "test", "integration"), sourcefile: name, loader: "ts" },
    bundle: true,
    platform: "node",
    format: "cjs",
    target: "node20",
    outfile,
    logLevel: "warning",
  });
  return outfile;
}
