/**
 * pnpm (spec: "Ownership rules", Runtimes): the verified tarball, whose
 * executable bits are kept for the owner only, checked with pnpm --version
 * on our Node.
 */
import { join } from "../../core/native-path";
import type { Source } from "../../core/source";
import { pnpmEnvironment } from "../../core/environment";
import { extractTarGz, OUTSIDE, type MemberPolicy } from "../../io/archive";
import { lstatOrNull } from "../../io/files";
import { run } from "../../io/process";
import { expectedOf, MiB, startFetch, type PendingArchive, type Recipe, type RuntimeContext } from "./recipe";

export function pnpmPolicy(maxBytes: number): MemberPolicy {
  return {
    name: "pnpm tarball",
    links: "reject",
    maxMembers: 20_000,
    maxBytes,
    select(path) {
      if (path === "package") return null;
      if (!path.startsWith("package/")) return OUTSIDE;
      return path;
    },
    // Executable bits are kept for the owner only.
    fileMode: (mode) => (mode & 0o111 ? 0o744 : 0o644),
  };
}

/**
 * `node`: the Node that runs the check; by default the published one. Node's
 * staging folder while both are installed at once: the same verified bytes,
 * checked by then.
 */
export function pnpmRecipe(ctx: RuntimeContext, archive: PendingArchive, node: () => string = () => ctx.layout.node): Recipe {
  const { layout, pins } = ctx;
  const name = `pnpm ${pins.pnpm.version}`;
  return {
    name,
    dir: layout.pnpmDir,
    tag: `pnpm-${pins.pnpm.version}`,
    archive,
    recordFiles: true,
    unpack: async (file, staging) => {
      return (await extractTarGz(file, staging, pnpmPolicy(200 * MiB))).written;
    },
    async check(staging) {
      const entry = join(staging, "package", "bin", "pnpm.mjs");
      if (!(await lstatOrNull(entry))?.isFile()) throw new Error(`the ${name} tarball holds no bin/pnpm.mjs; it was rejected`);
      const env = pnpmEnvironment(layout, { env: ctx.env });
      const result = await run(node(), [entry, "--version"], { env, cwd: staging, timeoutMs: 60_000 });
      if (result.code !== 0 || result.stdout.trim() !== pins.pnpm.version) {
        throw new Error(`${name} printed ${JSON.stringify(result.stdout.trim() || result.stderr.trim().slice(0, 200))} for --version`);
      }
      return `pnpm ${pins.pnpm.version} ${pins.pnpm.integrity}\n`;
    },
  };
}

export function pnpmPending(ctx: RuntimeContext, source: Source): PendingArchive {
  const { pins } = ctx;
  const name = `pnpm ${pins.pnpm.version}`;
  if (!pins.pnpm.integrity && !pins.pnpm.file.sha256) throw new Error(`${name} has no pinned checksum in this build, so it is not downloaded`);
  return startFetch(ctx, source, pins.pnpm.file, expectedOf(name, pins.pnpm.file, { integrity: pins.pnpm.integrity }), ctx.layout.runtime);
}
