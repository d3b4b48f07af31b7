/**
 * The registry an install asks (spec: "User npm settings"): the one the
 * filtered npmrc names, else the one our npm reports by default, asked in
 * a neutral folder so no project's .npmrc chooses it.
 */
import { join } from "pathe";
import type { Layout } from "../core/layout";
import { npmQueryEnvironment, type Env } from "../core/environment";
import { npmrcRegistry } from "../core/npmrc";
import { run } from "../io/process";

/** The registry npm's configuration names: the filtered npmrc, else our npm's default. */
export async function configuredRegistry(layout: Layout, npmrc: string, env: Env): Promise<string> {
  const fromFile = npmrcRegistry(npmrc);
  if (fromFile) return fromFile;
  const npmCli =
    layout.platform === "win32"
      ? join(layout.nodeDir, "node_modules", "npm", "bin", "npm-cli.js")
      : join(layout.nodeDir, "lib", "node_modules", "npm", "bin", "npm-cli.js");
  const clean = npmQueryEnvironment(env);
  // A neutral folder: npm reads a project's .npmrc from the folder it runs in (or the nearest one
  // above with a package.json), so the user's current directory must not choose the registry.
  // --prefix pins npm's project folder to our runtime, which holds no .npmrc.
  const neutral = layout.nodeDir;
  const result = await run(
    layout.node,
    [npmCli, "config", "get", "registry", `--userconfig=${layout.pnpm.npmrc}`, `--globalconfig=${layout.npm.globalconfig}`, `--prefix=${neutral}`],
    { env: clean, cwd: neutral, timeoutMs: 60_000 },
  );
  const registry = result.stdout.trim();
  if (result.code !== 0 || !/^https?:\/\//.test(registry)) throw new Error("npm did not report a registry");
  return registry.endsWith("/") ? registry : registry + "/";
}
