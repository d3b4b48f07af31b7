/**
 * Node with npm (spec: "Ownership rules", Runtimes; "npm for Pi"): the
 * verified Node archive, of which only node, the npm bundled with it and
 * LICENSE are extracted, plus our own npm and npx wrappers. Both node
 * --version and npm --version are checked from staging; Pi's npm entry is
 * written after publish or reuse (./npm-shim.ts).
 */
import { promises as fs } from "node:fs";
import { dirname, join } from "../../core/native-path";
import { pnpmEnvironment } from "../../core/environment";
import { OUTSIDE, type MemberPolicy } from "../../io/archive";
import { extractArchive } from "../../io/extract";
import { lstatOrNull, readTextOrNull } from "../../io/files";
import { run } from "../../io/process";
import { stepMark } from "../../io/step-times";
import { ensureNpmShim } from "./npm-shim";
import { expectedOf, MiB, startFetch, type PendingArchive, type Recipe, type RuntimeContext } from "./recipe";

export function nodePolicy(root: string, win: boolean, maxBytes: number): MemberPolicy {
  return {
    name: `${root} archive`,
    links: "skip",
    maxMembers: 20_000,
    maxBytes,
    select(path, type) {
      if (path === root) return null;
      if (!path.startsWith(root + "/")) return OUTSIDE;
      const rel = path.slice(root.length + 1);
      if (win) {
        if (type === "file" && rel === "node.exe") return rel;
        if (rel === "node_modules/npm" || rel.startsWith("node_modules/npm/")) return rel;
        if (type === "file" && rel === "LICENSE") return rel;
        return null;
      }
      if (type === "file" && rel === "bin/node") return rel;
      if (rel === "lib/node_modules/npm" || rel.startsWith("lib/node_modules/npm/")) return rel;
      if (type === "file" && rel === "LICENSE") return rel;
      return null;
    },
  };
}

/** Our npm and npx: sh wrappers on POSIX (in place of the archive's links), .cmd files on Windows. */
export function npmWrappers(win: boolean): Record<string, string> {
  if (win) {
    const cmd = (cli: string) => ["@ECHO OFF", "SETLOCAL DisableDelayedExpansion", `"%~dp0node.exe" "%~dp0node_modules\\npm\\bin\\${cli}" %*`, ""].join("\r\n");
    return { "npm.cmd": cmd("npm-cli.js"), "npx.cmd": cmd("npx-cli.js") };
  }
  const sh = (cli: string) => `#!/bin/sh
# gentle-shell-setup: runs the npm of this runtime with this runtime's node.
dir=$(CDPATH= cd -- "$(dirname -- "$0")" && pwd) || exit 1
exec "$dir/node" "$dir/../lib/node_modules/npm/bin/${cli}" "$@"
`;
  return { "bin/npm": sh("npm-cli.js"), "bin/npx": sh("npx-cli.js") };
}

/** The node executable inside a Node runtime folder (published or staging). */
export function nodeIn(dir: string, win: boolean): string {
  return win ? join(dir, "node.exe") : join(dir, "bin", "node");
}

/**
 * `executable` hears the staging folder as soon as its node executable is whole, while npm's files are still
 * being extracted (a tar's; from a zip, never): pnpm's check can run on it that early.
 */
export function nodeRecipe(ctx: RuntimeContext, archive: PendingArchive, executable?: (staging: string) => void): Recipe {
  const { layout, pins } = ctx;
  const name = `Node ${pins.node.version}`;
  const win = layout.platform === "win32";
  const pin = pins.node.archives[ctx.target]!;
  return {
    name,
    dir: layout.nodeDir,
    tag: `node-${pins.node.version}`,
    archive,
    async unpack(file, staging) {
      const policy = nodePolicy(`node-v${pins.node.version}-${ctx.target}`, win, 400 * MiB);
      const binary = win ? "node.exe" : "bin/node";
      const whole = (target: string) => {
        if (target !== binary || !executable) return;
        stepMark(`${name}:executable`, ctx.env);
        executable(staging);
      };
      const { written } = await extractArchive(file, staging, policy, win, { whole });
      // The wrappers are written here and hashed when the record is (they are not in `written`).
      for (const [rel, text] of Object.entries(npmWrappers(win))) {
        await fs.mkdir(dirname(join(staging, rel)), { recursive: true, mode: 0o755 });
        await fs.writeFile(join(staging, rel), text, { mode: win ? 0o644 : 0o755 });
      }
      return written;
    },
    async check(staging) {
      const nodeBin = nodeIn(staging, win);
      const npmDir = win ? join(staging, "node_modules", "npm") : join(staging, "lib", "node_modules", "npm");
      const nodeStat = await lstatOrNull(nodeBin);
      if (!nodeStat?.isFile()) throw new Error(`the ${name} archive holds no node executable; it was rejected`);
      const npmPkgText = await readTextOrNull(join(npmDir, "package.json"));
      if (!npmPkgText) throw new Error(`the ${name} archive holds no npm; it was rejected`);
      let npmVersionWanted: string | undefined;
      try {
        npmVersionWanted = (JSON.parse(npmPkgText) as { version?: string }).version;
      } catch {
        npmVersionWanted = undefined;
      }
      if (!npmVersionWanted) throw new Error(`the npm in the ${name} archive has no readable version; it was rejected`);
      const env = pnpmEnvironment(layout, { env: ctx.env });
      // Both at once: npm's check does not wait for node's.
      const [nodeVersion, npmVersion] = await Promise.all([
        run(nodeBin, ["--version"], { env, cwd: staging, timeoutMs: 60_000 }),
        run(nodeBin, [join(npmDir, "bin", "npm-cli.js"), "--version"], { env, cwd: staging, timeoutMs: 60_000 }),
      ]);
      if (nodeVersion.code !== 0 || nodeVersion.stdout.trim() !== `v${pins.node.version}`) {
        throw new Error(
          `the ${name} from the archive printed ${JSON.stringify(nodeVersion.stdout.trim() || nodeVersion.stderr.trim().slice(0, 200))} for --version`,
        );
      }
      if (npmVersion.code !== 0 || npmVersion.stdout.trim() !== npmVersionWanted) {
        throw new Error(
          `the npm in the ${name} archive printed ${JSON.stringify(npmVersion.stdout.trim() || npmVersion.stderr.trim().slice(0, 200))}, expected ${npmVersionWanted}`,
        );
      }
      return `node ${pins.node.version} npm ${npmVersionWanted} sha256 ${pin.sha256}\n`;
    },
    after: () => ensureNpmShim(layout),
    recordFiles: true,
  };
}

export function nodePending(ctx: RuntimeContext): PendingArchive {
  const name = `Node ${ctx.pins.node.version}`;
  const pin = ctx.pins.node.archives[ctx.target];
  if (!pin?.sha256) throw new Error(`${name} for ${ctx.target} has no pinned checksum in this build, so it is not downloaded`);
  return startFetch(ctx, ctx.source, pin, expectedOf(`${name} (${ctx.target})`, pin), ctx.layout.runtime);
}
