/**
 * Typed access to build/toolchain.mjs (another module's job: verified, cached
 * Node 24.21.0 executables and registry tarballs). Loaded by path so this
 * TypeScript needs no declaration file for the plain-JS module.
 */
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { REPO_ROOT } from "./paths";

export interface Toolchain {
  CACHE_DIR: string;
  hostTarget(): string;
  ensureNodeBinary(target?: string): Promise<string>;
  ensurePackageTarball(name: string, version: string): Promise<string>;
}

let loaded: Promise<Toolchain> | undefined;

export function toolchain(): Promise<Toolchain> {
  const url = pathToFileURL(join(REPO_ROOT, "build", "toolchain.mjs")).href;
  loaded ??= import(/* @vite-ignore */ url) as Promise<Toolchain>;
  return loaded;
}

/**
 * The pinned Node 24.21.0 of this machine's platform, verified (never
 * process.execPath: a workflow's setup-node runs the tests on Node 20, and the
 * engine calls Node 24's http.setGlobalProxyFromEnv).
 */
export async function pinnedNode(): Promise<string> {
  return (await toolchain()).ensureNodeBinary();
}
