/**
 * Go (spec: "Ownership rules", Runtimes; Go on Windows): our Go under
 * runtime/go/<v>/go/ (acquireGo layout), acquired only when a build asks for
 * it, and checked with go version in an environment without the user's GO*
 * settings.
 */
import { dirname, join } from "../../core/native-path";
import { goCheckEnvironment } from "../../core/environment";
import { OUTSIDE, type MemberPolicy } from "../../io/archive";
import { extractArchive, isZip } from "../../io/extract";
import { lstatOrNull } from "../../io/files";
import { run } from "../../io/process";
import { cleanStaleStaging, existingRuntime, expectedOf, installRuntime, MiB, startFetch, type RuntimeContext, type RuntimeOutcome } from "./recipe";
import { ensureOwnDir } from "../../io/own-dir";

export function goPolicy(win: boolean): MemberPolicy {
  return {
    name: "Go archive",
    links: "skip",
    maxMembers: 50_000,
    maxBytes: 1024 * MiB,
    select(path) {
      if (path === "go") return "go";
      if (!path.startsWith("go/")) return OUTSIDE;
      return path;
    },
    fileMode: (mode) => (win ? 0o644 : mode & 0o100 ? 0o755 : 0o644),
  };
}

/** An environment for running our Go once: no GO* setting of the user's, no toolchain switch. */

/** Our Go under runtime/go/<v>/go/ (acquireGo layout), only when a build asks for it. */
export async function acquireGo(ctx: RuntimeContext): Promise<RuntimeOutcome> {
  const { layout, pins } = ctx;
  const name = `Go ${pins.go.version}`;
  const versionDir = dirname(layout.goDir);
  await ensureOwnDir(layout.prefix, dirname(versionDir));
  await cleanStaleStaging(dirname(versionDir));
  if (await existingRuntime(versionDir, name, layout.runtime)) return { name, path: layout.goDir, status: "reused" };
  const pin = pins.go.archives[ctx.target];
  if (!pin?.sha256) throw new Error(`${name} for ${ctx.target} has no pinned checksum in this build, so it is not downloaded`);
  const win = layout.platform === "win32";
  const archive = startFetch(ctx, ctx.source, pin, expectedOf(`${name} (${ctx.target})`, pin), dirname(versionDir));
  const outcome = await installRuntime(ctx, {
    name,
    dir: versionDir,
    tag: `go-${pins.go.version}`,
    archive,
    async unpack(file, staging) {
      return (await extractArchive(file, staging, goPolicy(win), win || isZip(file) || isZip(pin.path))).written;
    },
    async check(staging) {
      const goBin = join(staging, "go", "bin", win ? "go.exe" : "go");
      if (!(await lstatOrNull(goBin))?.isFile()) throw new Error(`the ${name} archive holds no go/bin/go; it was rejected`);
      const result = await run(goBin, ["version"], { env: goCheckEnvironment(ctx.env), cwd: staging, timeoutMs: 60_000 });
      const printed = result.stdout.trim();
      if (result.code !== 0 || !printed.startsWith(`go version go${pins.go.version} `)) {
        throw new Error(`${name} printed ${JSON.stringify(printed || result.stderr.trim().slice(0, 200))} for go version`);
      }
      return `go ${pins.go.version} sha256 ${pin.sha256}\n`;
    },
  });
  return { ...outcome, path: layout.goDir };
}
