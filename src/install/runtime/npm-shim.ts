/**
 * Pi's npm entry (spec: "npm for Pi"): runtime/node-<v>/gentle-shell/npm, a
 * CommonJS file that loads the npm bundled with our Node, and a package.json
 * beside it that keeps it CommonJS. Each file is replaced with one rename,
 * only when its content differs; a link or anything but a regular file in
 * its place stops it.
 */
import { join } from "../../core/native-path";
import type { Layout } from "../../core/layout";
import { fileInPlace, writeIfChanged } from "../../io/files";
import { ensureOwnDir, ownDirInPlace } from "../../io/own-dir";

/**
 * The system's certificate store for Pi's npm, in npm's own process, as Pi
 * has it: Pi's environment carries no NODE_USE_SYSTEM_CA of ours, so npm's
 * children (install scripts) get none either. A value the user set decides;
 * a store that cannot be read leaves Node's own roots.
 */
const SYSTEM_STORE = `if (process.env.NODE_USE_SYSTEM_CA === undefined) {
  try {
    const tls = require("node:tls");
    tls.setDefaultCACertificates([...tls.getCACertificates("default"), ...tls.getCACertificates("system")]);
  } catch {}
}
`;

/** The CommonJS entry Pi's npmCommand runs: its basename is exactly `npm`. */
export function npmShimFiles(win: boolean): { entry: string; packageJson: string } {
  const cli = win ? "../node_modules/npm/bin/npm-cli.js" : "../lib/node_modules/npm/bin/npm-cli.js";
  return {
    entry: `// gentle-shell-setup: Pi's npm entry. Loads the npm bundled with this runtime.\n"use strict";\n${SYSTEM_STORE}require(${JSON.stringify(cli)});\n`,
    packageJson: JSON.stringify({ type: "commonjs" }) + "\n",
  };
}

/** Synchronously, whether ensureNpmShim would find both files as they must be and write nothing. */
export function npmShimInPlace(layout: Layout): boolean {
  const dir = join(layout.nodeDir, "gentle-shell");
  const files = npmShimFiles(layout.platform === "win32");
  return ownDirInPlace(layout.prefix, dir) && fileInPlace(join(dir, "package.json"), files.packageJson) && fileInPlace(join(dir, "npm"), files.entry);
}

/** runtime/node-<v>/gentle-shell/{npm,package.json}: written when they differ, refused over a link. */
export async function ensureNpmShim(layout: Layout): Promise<void> {
  const dir = join(layout.nodeDir, "gentle-shell");
  await ensureOwnDir(layout.prefix, dir);
  const files = npmShimFiles(layout.platform === "win32");
  await writeIfChanged(join(dir, "package.json"), files.packageJson, 0o644);
  await writeIfChanged(join(dir, "npm"), files.entry, 0o644);
}
