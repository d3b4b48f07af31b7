import { errnoCode } from "../../core/errno";
import { promises as fs } from "node:fs";
import { join } from "../../core/native-path";
import type { Layout } from "../../core/layout";
import {
  toolCheckEnvironment,
  toolFileName,
  toolMarkerName,
  toolMarkerText,
  toolMember,
  toolPin,
  versionOutputMatches,
  type PiTool,
} from "../../core/pi-tool-rules";
import type { MemberPolicy } from "../../io/archive";
import { extractArchive, isZip } from "../../io/extract";
import { ensureRealFolder, lstatOrNull, writeFileAtomic } from "../../io/files";
import { run } from "../../io/process";
import { stagingPath, sweepAbandoned } from "../../io/staging";
import { cleanStaleStaging, existingRuntime, expectedOf, installRuntime, MiB, startFetch, type RuntimeContext, type RuntimeOutcome } from "./recipe";
import { ensureOwnDir } from "../../io/own-dir";
import { sha256Of, toolPresence, toolRuntimeDir, toolRuntimeFile } from "./pi-tools-presence";
import { rm } from "../../io/locked-retry";

export { sha256Of, toolPresence, toolRuntimeDir, toolRuntimeFile };

export function toolPolicy(tool: PiTool, archivePath: string, layout: Layout): MemberPolicy {
  const file = toolFileName(tool, layout.platform);
  const win = layout.platform === "win32";
  return {
    name: `${tool.name} archive`,
    links: "skip",
    maxMembers: 1_000,
    maxBytes: 128 * MiB,
    select: (path, type) => (type === "file" && toolMember(tool, archivePath, layout.platform, path) ? file : null),
    fileMode: () => (win ? 0o644 : 0o755),
  };
}

/** The pinned tool under runtime/: reused when marked, else fetched, checked and published. */
export async function ensurePiToolRuntime(ctx: RuntimeContext, tool: PiTool): Promise<RuntimeOutcome> {
  const { layout } = ctx;
  const pinned = toolPin(ctx.pins, tool);
  const name = `${tool.name} ${pinned.version}`;
  const pin = pinned.archives[ctx.target];
  if (!pin?.sha256) throw new Error(`${name} for ${ctx.target} has no pinned checksum in this build`);
  const dir = toolRuntimeDir(layout, tool);
  await ensureOwnDir(layout.prefix, layout.runtime);
  await cleanStaleStaging(layout.runtime);
  if (await existingRuntime(dir, name, layout.runtime)) return { name, path: dir, status: "reused" };
  const file = toolFileName(tool, layout.platform);
  const archive = startFetch(ctx, ctx.source, pin, expectedOf(`${name} (${ctx.target})`, pin), layout.runtime);
  return installRuntime(ctx, {
    name,
    dir,
    tag: `${tool.name}-${pinned.version}`,
    archive,
    async unpack(downloaded, staging) {
      return (await extractArchive(downloaded, staging, toolPolicy(tool, pin.path, layout), isZip(pin.path))).written;
    },
    async check(staging) {
      const bin = join(staging, file);
      if (!(await lstatOrNull(bin))?.isFile()) throw new Error(`the ${name} archive holds no ${file} file; it was rejected`);
      const result = await run(bin, ["--version"], { env: toolCheckEnvironment(ctx.env), cwd: staging, timeoutMs: 30_000 });
      if (result.code !== 0 || !versionOutputMatches(tool, pinned.version, result.stdout)) {
        const printed = result.stdout.trim().split("\n")[0] || result.stderr.trim().slice(0, 200);
        throw new Error(`${name} printed ${JSON.stringify(printed)} for ${file} --version, expected "${tool.name} ${pinned.version}"`);
      }
      return `${tool.name} ${pinned.version} sha256 ${pin.sha256}\n`;
    },
  });
}

export type PlaceOutcome = "placed" | "taken";

/**
 * Copy the verified runtime file into <agent home>/bin when nothing is
 * there. "taken": something appeared at the path meanwhile, and it was kept.
 */
export async function placePiTool(layout: Layout, tool: PiTool, version: string, options: { replace?: boolean } = {}): Promise<PlaceOutcome> {
  const from = toolRuntimeFile(layout, tool);
  const bin = layout.agentBin;
  // Never through a link: the folder is checked, and created 0700 when absent.
  await ensureRealFolder(bin, 0o700);
  await sweepAbandoned(bin, ["staging"]);
  const name = toolFileName(tool, layout.platform);
  const dest = join(bin, name);
  // Our own file of another version goes first, checked again right before.
  if (options.replace && (await toolPresence(layout, tool, version)) === "ours-outdated") await rm(dest);
  if (await lstatOrNull(dest)) return "taken";
  const staged = stagingPath(bin, "staging", { label: tool.exe });
  try {
    await fs.copyFile(from, staged, fs.constants.COPYFILE_EXCL);
    await fs.chmod(staged, layout.platform === "win32" ? 0o644 : 0o755);
    const sha256 = await sha256Of(staged);
    await writeFileAtomic(join(bin, toolMarkerName(tool)), toolMarkerText({ tool: tool.name, version, sha256 }), 0o600);
    try {
      await fs.link(staged, dest);
    } catch (error) {
      if (errnoCode(error) === "EEXIST") return "taken";
      throw error;
    }
    return "placed";
  } finally {
    await rm(staged, { force: true });
  }
}

/** Remove our tool and its marker; a file that is not ours stays, and so does its marker's absence. True when ours went. */
export async function removeOwnTool(layout: Layout, tool: PiTool): Promise<boolean> {
  const presence = await toolPresence(layout, tool);
  const marker = join(layout.agentBin, toolMarkerName(tool));
  // (Without a version, our file of any version reads "ours".)
  if (presence === "ours") {
    await rm(join(layout.agentBin, toolFileName(tool, layout.platform)));
    await rm(marker, { force: true });
    return true;
  }
  // A marker whose file is gone (or was replaced) describes nothing of ours any more.
  if ((await lstatOrNull(marker))?.isFile()) await rm(marker);
  return false;
}
