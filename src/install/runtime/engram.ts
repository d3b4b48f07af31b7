/**
 * Engram (spec: "Isolation from the user's Gentle AI", Engram): the pinned
 * Engram release under runtime/engram-<v>/. Only the engram (or engram.exe)
 * regular file is written, and engram version must print engram <v> from
 * staging before the folder is published. An unknown pin makes it
 * unavailable; nothing is downloaded then.
 */
import { join } from "../../core/native-path";
import { engramCheckEnvironment } from "../../core/environment";
import type { MemberPolicy } from "../../io/archive";
import { extractArchive, isZip } from "../../io/extract";
import { lstatOrNull } from "../../io/files";
import { run } from "../../io/process";
import { cleanStaleStaging, existingRuntime, expectedOf, installRuntime, MiB, startFetch, type RuntimeContext, type RuntimeOutcome } from "./recipe";
import { ensureOwnDir } from "../../io/own-dir";
import { setAsideIfBroken, type VerifyDepth } from "./verify";

export type EngramOutcome = (RuntimeOutcome & { available: true }) | { name: string; available: false; status: "unavailable"; path: null; reason: string };

export function engramPolicy(win: boolean): MemberPolicy {
  const exe = win ? "engram.exe" : "engram";
  return {
    name: "Engram archive",
    links: "skip",
    maxMembers: 1_000,
    maxBytes: 256 * MiB,
    select: (path, type) => (type === "file" && path === exe ? exe : null),
    fileMode: () => (win ? 0o644 : 0o755),
  };
}

/** An environment for `engram version`: no ENGRAM_* setting, no GitHub token, no update check. */

/**
 * ensureEngram: the pinned Engram core under runtime/engram-<v>/. A pin that
 * is not known makes it unavailable (nothing is downloaded), which callers
 * treat as the spec's "bundled core missing or unverified".
 */
export async function ensureEngram(ctx: RuntimeContext, verify: VerifyDepth = "sizes"): Promise<EngramOutcome> {
  const { layout, pins } = ctx;
  const name = `Engram ${pins.engram.version}`;
  const pin = pins.engram.archives[ctx.target];
  if (!pin?.sha256) {
    return {
      name,
      available: false,
      status: "unavailable",
      path: null,
      reason: `${name} for ${ctx.target} has no pinned checksum in this build, so it is not downloaded; memory stays disabled (the bundled core is missing)`,
    };
  }
  await ensureOwnDir(layout.prefix, layout.runtime);
  await cleanStaleStaging(layout.runtime);
  let repaired: string | null = null;
  if (await existingRuntime(layout.engramDir, name, layout.runtime)) {
    repaired = await setAsideIfBroken(layout, "engram", ctx.env, verify);
    if (!repaired) return { name, path: layout.engramDir, status: "reused", available: true };
  }
  const win = layout.platform === "win32";
  const exe = win ? "engram.exe" : "engram";
  const archive = startFetch(ctx, ctx.source, pin, expectedOf(`${name} (${ctx.target})`, pin), layout.runtime);
  const outcome = await installRuntime(ctx, {
    name,
    dir: layout.engramDir,
    tag: `engram-${pins.engram.version}`,
    recordFiles: true,
    archive,
    async unpack(file, staging) {
      return (await extractArchive(file, staging, engramPolicy(win), win || isZip(pin.path))).written;
    },
    async check(staging) {
      const bin = join(staging, exe);
      if (!(await lstatOrNull(bin))?.isFile()) throw new Error(`the ${name} archive holds no ${exe} file; it was rejected`);
      const result = await run(bin, ["version"], { env: engramCheckEnvironment(ctx.env), cwd: staging, timeoutMs: 30_000 });
      const printed = result.stdout.trim();
      if (result.code !== 0 || printed !== `engram ${pins.engram.version}`) {
        throw new Error(
          `${name} printed ${JSON.stringify(printed || result.stderr.trim().slice(0, 200))} for engram version, expected "engram ${pins.engram.version}"`,
        );
      }
      return `engram ${pins.engram.version} sha256 ${pin.sha256}\n`;
    },
  });
  return { ...outcome, ...(repaired ? { repaired } : {}), available: true };
}
