/**
 * The release's two distribution assets, built and verified (spec: "Release
 * distribution assets", "Release workflow"). Both work in a temporary prefix
 * (gsd-* in the system's temporary folder) with our own verified Node and
 * pnpm, made only after their arguments were accepted and always removed.
 *
 * - build: distributionFiles() resolved by our pnpm (`install
 *   --lockfile-only`, the "just published" retry included), written as
 *   gentle-shell-distribution.json and gentle-shell-distribution-lock.yaml.
 *   The same inputs give the same bytes.
 * - verify: the assets read back by readDistribution, installed with
 *   --frozen-lockfile, current switched, the launcher written, and its
 *   --version required to say exactly `gentle-shell <shell>` and `pi <pi>`
 *   in the environment our pnpm ran in, without any GENTLE_* or PI_*
 *   variable and without npm_config_prefix.
 */
import { errnoCode } from "../core/errno";
import { promises as fs } from "node:fs";
import { temporaryFolder } from "../io/staging";
import { join } from "../core/native-path";
import { DISTRIBUTION_JSON, DISTRIBUTION_LOCK, readDistribution } from "../core/release-project";
import { launcherCheckEnvironment, type Env } from "../core/environment";
import { prefixLayout, type Layout, type Platform } from "../core/layout";
import { npmrcRegistry } from "../core/npmrc";
import { parseSource } from "../core/source";
import { assertExactVersion } from "../core/versions";
import type { Pins, Target } from "../pins/types";
import { runLauncher } from "../io/process";
import { activateVersion } from "../install/activate";
import { buildDistribution } from "./distribution-build";
import { ensureLauncher } from "../install/launcher";
import { trustRegistries, userRegistrySettings, writeNpmrcAuth } from "../install/npm-settings";
import type { HttpClient } from "../io/http-client";
import { configuredRegistry } from "../install/npm-registry";
import { acquireGo } from "../install/runtime/go";
import { ensureRuntimes } from "../install/runtime/index";
import { installVersion } from "../install/version-install";
import { rm } from "../io/locked-retry";

export interface ReleaseContext {
  pins: Pins;
  target: Target;
  platform: Platform;
  env: Env;
  /** The Host's HTTP client, which the runtimes' downloads go through. */
  http: HttpClient;
  /** The user's home: its npm settings name the registry (User npm settings). */
  home: string;
  /** Where runtimes come from: official (default), a mirror URL or a folder. */
  source?: string;
  /** "Just published" retries (10 attempts, 30 s apart unless a test says otherwise). */
  attempts?: number;
  retryDelayMs?: number;
  say?: (line: string) => void;
}

/** A temporary prefix with our runtimes and the user's registry settings, removed whatever happens. */
async function withTemporaryPrefix<T>(ctx: ReleaseContext, work: (layout: Layout, npmrc: string) => Promise<T>): Promise<T> {
  const root = await temporaryFolder("gss-release");
  try {
    const prefix = join(root, "prefix");
    await fs.mkdir(prefix, { mode: 0o700 });
    // On Windows a fresh temporary folder stands in for the private-folder claim.
    const layout = prefixLayout({ home: root, platform: ctx.platform, pins: ctx.pins, prefix, windowsPrefix: prefix });
    const { npmrc } = await userRegistrySettings(ctx.env, ctx.home);
    await writeNpmrcAuth(layout, npmrc);
    let source = parseSource(ctx.source, "");
    // The official source's pnpm comes from the registry npm's configuration names, asked of our npm once Node is there.
    // Its pnpm with the authorities the npm settings name for the registry (ca, cafile), as an install's.
    const official = async () => {
      const registry = npmrcRegistry(npmrc, ctx.env) ?? (await configuredRegistry(layout, npmrc, ctx.env));
      await trustRegistries(ctx.http, [registry], npmrc, ctx.env);
      return { kind: "official" as const, registry };
    };
    const runtimeCtx = { http: ctx.http, layout, pins: ctx.pins, source, target: ctx.target, env: ctx.env };
    const { node, pnpm } = await ensureRuntimes(runtimeCtx, { pnpmSource: source.kind === "official" ? official : source });
    if (source.kind === "official") source = await official();
    ctx.say?.(`${node.name} and ${pnpm.name} verified in a temporary prefix`);
    if (layout.platform === "win32") await acquireGo({ ...runtimeCtx, source });
    return await work(layout, npmrc);
  } finally {
    await rm(root, { recursive: true, force: true }).catch(() => undefined);
  }
}

export async function buildReleaseAssets(ctx: ReleaseContext & { shell: string; pi: string; out: string }): Promise<{ json: string; lock: string }> {
  const shell = assertExactVersion("--shell", ctx.shell);
  const pi = assertExactVersion("--pi", ctx.pi);
  await fs.mkdir(ctx.out, { recursive: true, mode: 0o755 });
  const existing = (await fs.readdir(ctx.out)).filter((n) => n === DISTRIBUTION_JSON || n === DISTRIBUTION_LOCK);
  if (existing.length) throw new Error(`${ctx.out} already holds ${existing.join(" and ")}; choose an empty folder`);
  const built = await withTemporaryPrefix(ctx, (layout) =>
    buildDistribution({
      shell,
      pi,
      node: layout.node,
      pnpmEntry: layout.pnpmEntry,
      layout,
      pins: ctx.pins,
      env: ctx.env,
      attempts: ctx.attempts,
      retryDelayMs: ctx.retryDelayMs,
    }),
  );
  const json = join(ctx.out, DISTRIBUTION_JSON);
  const lock = join(ctx.out, DISTRIBUTION_LOCK);
  await fs.writeFile(lock, built.lockfile, { mode: 0o644 });
  await fs.writeFile(json, built.json, { mode: 0o644 });
  return { json, lock };
}

export async function verifyReleaseAssets(ctx: ReleaseContext & { assets: string; engine: string }): Promise<{ shell: string; pi: string }> {
  const read = async (name: string) => {
    try {
      return await fs.readFile(join(ctx.assets, name), "utf8");
    } catch (error) {
      throw new Error(`${name} is not in ${ctx.assets} (${errnoCode(error) ?? (error as Error).message})`);
    }
  };
  const distribution = readDistribution(await read(DISTRIBUTION_JSON), await read(DISTRIBUTION_LOCK), ctx.assets);
  const { id, shell, pi } = distribution.manifest;
  await withTemporaryPrefix(ctx, async (layout, npmrc) => {
    await installVersion({ layout, distribution, env: ctx.env, engine: ctx.engine, go: layout.platform === "win32" });
    await activateVersion(layout, id);
    await ensureLauncher(layout);
    const env = launcherCheckEnvironment(layout, { env: ctx.env, npmrc });
    delete env.npm_config_prefix;
    const result = await runLauncher(layout, ["--version"], { env, timeoutMs: 120_000 });
    const lines = result.stdout.split(/\r?\n/);
    if (result.code !== 0 || lines[0] !== `gentle-shell ${shell}` || lines[1] !== `pi ${pi}`) {
      throw new Error(
        `the installed launcher reported ${JSON.stringify(lines.slice(0, 2).join(" / ") || result.stderr.trim().slice(0, 300))}, expected gentle-shell ${shell} / pi ${pi}`,
      );
    }
  });
  return { shell, pi };
}
