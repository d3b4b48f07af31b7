/**
 * gentle-shell setup in a bundled install (spec: "Launcher in a bundled
 * install", Setup; "Isolation from the user's Gentle AI"; "Recovery and
 * setup"). Publishes the verified Engram core first and stops if it cannot;
 * then runs the version's pinned Gentle AI (`gentle-ai install --agent pi`)
 * with pi findable on PATH, Gentle AI's isolation variables, and the
 * persona files it may rewrite restored afterwards.
 */
import { spawn } from "node:child_process";
import { promises as fs } from "node:fs";
import { dirname, join } from "pathe";
import type { Layout } from "../core/layout";
import { pathKey, type Env } from "../core/environment";
import { parseSource } from "../core/source";
import { buildPins } from "../pins/index";
import { hostTarget } from "../core/host";
import { lstatOrNull, readTextOrNull, writeFileAtomic } from "../io/files";
import { ensureEngram } from "../install/runtime";
import { bundledChildEnv, type BundledInstall } from "./bundled";
import { sourceFile } from "./upgrade";

/** The variables every Gentle AI process Gentle Shell starts gets (gentleAiIsolationEnv). */
export function gentleAiIsolationEnv(layout: Layout, engramPublished: boolean): Env {
  const env: Env = {
    GENTLE_AI_HOME: layout.gentleAi,
    GENTLE_AI_PI_CONFIG_DIR: layout.gentleAiConfig,
    GENTLE_AI_NO_SELF_UPDATE: "1",
    GENTLE_PI_CONFIG_HOME: layout.config,
  };
  if (engramPublished) env.GENTLE_AI_ENGRAM_BIN = layout.engram;
  return env;
}

/** bundledSetupEnv: Pi's environment, with our node and the version's .bin ahead of the user's PATH, plus isolation. */
export function bundledSetupEnv(install: BundledInstall, env: Env, engramPublished: boolean): Env {
  const out = bundledChildEnv(install, env);
  const { layout } = install;
  const key = pathKey(out, layout.platform);
  const sep = layout.platform === "win32" ? ";" : ":";
  const front = [dirname(layout.node), join(install.versionDir, "node_modules", ".bin")];
  out[key] = [...front, ...(out[key] ? [out[key]!] : [])].join(sep);
  return { ...out, ...gentleAiIsolationEnv(layout, engramPublished) };
}

/** The gentle-ai executable gentle-pi's build leaves: its package.json bin entry, else bin/gentle-ai. */
export async function gentleAiExecutable(install: BundledInstall): Promise<string> {
  const pkg = JSON.parse((await readTextOrNull(join(install.gentlePiRoot, "package.json"))) ?? "{}") as { bin?: unknown };
  const bin = typeof pkg.bin === "object" && pkg.bin !== null ? (pkg.bin as Record<string, unknown>)["gentle-ai"] : undefined;
  const rel = typeof bin === "string" ? bin : "bin/gentle-ai";
  const file = join(install.gentlePiRoot, rel);
  const stat = await lstatOrNull(file);
  if (!stat || !stat.isFile()) {
    throw new Error(`gentle-pi ${install.shell} has no gentle-ai executable (${rel}); its build did not run. Run the Gentle Shell installer again.`);
  }
  return file;
}

interface Snapshot {
  path: string;
  bytes: Buffer | null;
}

async function snapshot(paths: string[]): Promise<Snapshot[]> {
  return Promise.all(
    paths.map(async (path) => {
      const stat = await lstatOrNull(path);
      return { path, bytes: stat?.isFile() ? await fs.readFile(path) : null };
    }),
  );
}

/** Put each file back as it was; an unchanged file is not touched, a link is never written through. */
async function restore(snaps: Snapshot[]): Promise<string[]> {
  const restored: string[] = [];
  for (const { path, bytes } of snaps) {
    const stat = await lstatOrNull(path);
    if (bytes === null) {
      if (stat?.isFile()) {
        await fs.rm(path);
        restored.push(path);
      }
      continue;
    }
    if (stat && !stat.isFile()) continue;
    const now = stat ? await fs.readFile(path) : null;
    if (now && now.equals(bytes)) continue;
    await writeFileAtomic(path, bytes, stat ? stat.mode & 0o777 : 0o644);
    restored.push(path);
  }
  return restored;
}


export async function runSetup(install: BundledInstall, env: Env, args: string[]): Promise<number> {
  const { layout } = install;
  const err = (line: string) => process.stderr.write(`gentle-shell: ${line}\n`);
  const dryRun = args.includes("--dry-run");
  // Engram first: setup stops if the verified core cannot be published, whatever the memory decision.
  const sourceArg = (await readTextOrNull(sourceFile(layout)))?.trim();
  const source = parseSource(sourceArg, "");
  if (!dryRun) {
    const engram = await ensureEngram({ layout, pins: buildPins(), source, target: hostTarget(), env }).catch((error: Error) => ({
      available: false as const,
      reason: error.message,
    }));
    if (!engram.available) {
      err(`setup stopped: the bundled Engram could not be published (${engram.reason}). Nothing was set up.`);
      return 1;
    }
  }
  const { bundledCoreVerified, engramLaunchEnvironment } = await import("./engram");
  const engramPublished = await bundledCoreVerified(layout);
  let gentleAi: string;
  try {
    gentleAi = await gentleAiExecutable(install);
  } catch (error) {
    err((error as Error).message);
    return 1;
  }
  const home = layout.home;
  const guarded = await snapshot([
    join(layout.gentleAiConfig, "persona.json"),
    join(home, ".pi", "gentle-ai", "persona.json"),
    join(home, ".gentle-ai", "state.json"),
  ]);
  await fs.mkdir(layout.gentleAi, { recursive: true, mode: 0o700 });
  await fs.mkdir(layout.gentleAiConfig, { recursive: true, mode: 0o700 });
  const setupEnv = bundledSetupEnv(install, env, engramPublished);
  // Setup reclassifies after publishing the core; it never starts a server.
  const { applyEngram } = await import("./run");
  applyEngram(setupEnv, await engramLaunchEnvironment(layout, env, { phase: "setup" }));
  const code = await new Promise<number>((resolve) => {
    const child = spawn(gentleAi, ["install", "--agent", "pi", ...args], { stdio: "inherit", env: setupEnv as NodeJS.ProcessEnv, cwd: home });
    child.on("error", (error) => {
      err(`could not start gentle-ai: ${error.message}`);
      resolve(1);
    });
    child.on("exit", (c, signal) => resolve(c ?? (signal ? 130 : 1)));
  });
  const restored = await restore(guarded);
  for (const path of restored) err(`restored ${path.replace(home + "/", "~/")}, which Gentle AI changed`);
  return code;
}
