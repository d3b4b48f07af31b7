/**
 * Runtimes (spec: "Ownership rules", Runtimes; "npm for Pi"; "Isolation from
 * the user's Gentle AI", Engram): Node with npm, pnpm, Go and Engram, each a
 * Recipe installed by the one protocol in ./runtime/recipe.ts.
 */
import { promises as fs } from "node:fs";
import { join } from "pathe";
import type { Source } from "../core/source";
import type { Env } from "../core/environment";
import { extractTarGz, type MemberPolicy } from "../io/archive";
import { lstatOrNull } from "../io/files";
import { run } from "../io/process";
import {
  cleanStaleStaging,
  existingRuntime,
  expectedOf,
  installRuntime,
  MiB,
  startFetch,
  type PendingArchive,
  type RuntimeContext,
  type RuntimeOutcome,
} from "./runtime/recipe";
import { nodePending, nodeRecipe } from "./runtime/node";
import { ensureNpmShim } from "./runtime/npm-shim";
import { pnpmPending, pnpmRecipe } from "./runtime/pnpm";

// --- Node and pnpm together ------------------------------------------------

export interface EnsureRuntimesOptions {
  /** Default true. */
  node?: boolean;
  /** Default true. */
  pnpm?: boolean;
  /**
   * Where pnpm comes from (default ctx.source). A function is called once
   * Node is ready (the official source needs the registry our npm reports);
   * a Source lets both downloads run at once.
   */
  pnpmSource?: Source | (() => Promise<Source>);
  /** Also the pinned Engram core (ensureRuntime({ engram: true })), acquired alongside. Default false. */
  engram?: boolean;
}

export interface RuntimesOutcome {
  node: RuntimeOutcome;
  pnpm: RuntimeOutcome;
  /** Present when asked for: installed, reused, or unavailable (unknown pin). */
  engram?: EngramOutcome;
}

/**
 * Node with npm, then pnpm (whose check runs on our Node). The two archives
 * download in parallel, hashed while they stream, whenever pnpm's location
 * is known up front.
 */
export async function ensureRuntimes(ctx: RuntimeContext, options: EnsureRuntimesOptions = {}): Promise<RuntimesOutcome> {
  if (!options.engram) return nodeAndPnpm(ctx, options);
  // Engram needs neither Node nor pnpm: it downloads and installs alongside, and both are awaited before any error is thrown.
  const [runtimes, engram] = await Promise.allSettled([nodeAndPnpm(ctx, options), ensureEngram(ctx)]);
  if (runtimes.status === "rejected") throw runtimes.reason;
  if (engram.status === "rejected") throw engram.reason;
  return { ...runtimes.value, engram: engram.value };
}

async function nodeAndPnpm(ctx: RuntimeContext, options: EnsureRuntimesOptions): Promise<RuntimesOutcome> {
  const { layout, pins } = ctx;
  const wantNode = options.node ?? true;
  const wantPnpm = options.pnpm ?? true;
  const nodeName = `Node ${pins.node.version}`;
  const pnpmName = `pnpm ${pins.pnpm.version}`;
  await fs.mkdir(layout.runtime, { recursive: true, mode: 0o755 });
  await cleanStaleStaging(layout.runtime);
  const nodeThere = await existingRuntime(layout.nodeDir, nodeName, layout.runtime);
  const pnpmThere = wantPnpm && (await existingRuntime(layout.pnpmDir, pnpmName, layout.runtime));
  const pending: PendingArchive[] = [];
  try {
    const nodeArchive = wantNode && !nodeThere ? nodePending(ctx) : null;
    if (nodeArchive) pending.push(nodeArchive);
    const source = options.pnpmSource ?? ctx.source;
    let pnpmArchive = wantPnpm && !pnpmThere && typeof source !== "function" ? pnpmPending(ctx, source) : null;
    if (pnpmArchive) pending.push(pnpmArchive);

    let node: RuntimeOutcome;
    if (nodeArchive) {
      node = await installRuntime(ctx, nodeRecipe(ctx, nodeArchive));
    } else {
      if (!nodeThere) throw new Error(`${nodeName} is not installed; pnpm needs it`);
      await ensureNpmShim(layout);
      node = { name: nodeName, path: layout.nodeDir, status: "reused" };
    }
    if (!wantPnpm) return { node, pnpm: { name: pnpmName, path: layout.pnpmDir, status: "reused" } };
    if (pnpmThere) return { node, pnpm: { name: pnpmName, path: layout.pnpmDir, status: "reused" } };
    if (!pnpmArchive) {
      pnpmArchive = pnpmPending(ctx, await (source as () => Promise<Source>)());
      pending.push(pnpmArchive);
    }
    const pnpm = await installRuntime(ctx, pnpmRecipe(ctx, pnpmArchive));
    return { node, pnpm };
  } finally {
    await Promise.all(pending.map((p) => p.discard()));
  }
}

// --- Engram ------------------------------------------------------------------

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
function engramCheckEnvironment(env: Env): Env {
  const out: Env = {};
  for (const [k, v] of Object.entries(env)) {
    if (v === undefined || /^ENGRAM_/i.test(k) || /^(GH_TOKEN|GITHUB_TOKEN)$/i.test(k)) continue;
    out[k] = v;
  }
  out.ENGRAM_NO_UPDATE_CHECK = "1";
  return out;
}

/**
 * ensureEngram: the pinned Engram core under runtime/engram-<v>/. A pin that
 * is not known makes it unavailable (nothing is downloaded), which callers
 * treat as the spec's "bundled core missing or unverified".
 */
export async function ensureEngram(ctx: RuntimeContext): Promise<EngramOutcome> {
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
  await fs.mkdir(layout.runtime, { recursive: true, mode: 0o755 });
  await cleanStaleStaging(layout.runtime);
  if (await existingRuntime(layout.engramDir, name, layout.runtime)) return { name, path: layout.engramDir, status: "reused", available: true };
  const win = layout.platform === "win32";
  const exe = win ? "engram.exe" : "engram";
  const archive = startFetch(ctx, ctx.source, pin, expectedOf(`${name} (${ctx.target})`, pin), layout.runtime);
  const outcome = await installRuntime(ctx, {
    name,
    dir: layout.engramDir,
    tag: `engram-${pins.engram.version}`,
    archive,
    async unpack(file, staging) {
      if (win || pin.path.endsWith(".zip")) {
        const { extractZip } = await import("../io/zip");
        await extractZip(file, staging, engramPolicy(win));
      } else {
        await extractTarGz(file, staging, engramPolicy(win));
      }
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
  return { ...outcome, available: true };
}
