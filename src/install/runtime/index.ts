/**
 * Node and pnpm, and Engram when asked (spec: "Ownership rules", Runtimes;
 * "Isolation from the user's Gentle AI", Engram): ensureRuntimes acquires
 * them together, the Node and pnpm archives downloading at once, each
 * installed by the one protocol in ./recipe.ts.
 */
import type { Source } from "../../core/source";
import {
  cleanStaleStaging,
  existingRuntime,
  installRuntime,
  publishRuntime,
  stageRuntime,
  type Staged,
  type PendingArchive,
  type RuntimeContext,
  type RuntimeOutcome,
} from "./recipe";
import { nodeIn, nodePending, nodeRecipe } from "./node";
import { stageBoth } from "./both-at-once";
import { ensureNpmShim } from "./npm-shim";
import { pnpmPending, pnpmRecipe } from "./pnpm";
import { ensureEngram, type EngramOutcome } from "./engram";
import { runtimeDir, setAsideIfBroken, type OurRuntime, type VerifyDepth } from "./verify";
import { ensureOwnDir } from "../../io/own-dir";
import { lstatOrNull } from "../../io/files";
import { rm, rmdir } from "../../io/locked-retry";
import { stepMark } from "../../io/step-times";

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
  /**
   * Awaited once the downloads have started and before anything is
   * extracted: a check that must pass first (the release's signed manifest).
   * If it fails, the downloads are discarded and its error is thrown.
   */
  before?: Promise<unknown>;
  /** Also the pinned Engram core (ensureRuntime({ engram: true })), acquired alongside. Default false. */
  engram?: boolean;
  /** How a marked folder found there is checked before it is reused (./verify.ts); default "sizes". */
  verify?: VerifyDepth;
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
  const [runtimes, engram] = await Promise.allSettled([nodeAndPnpm(ctx, options), ensureEngram(ctx, options.verify)]);
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
  const hadRuntimeDir = (await lstatOrNull(layout.runtime)) !== null;
  await ensureOwnDir(layout.prefix, layout.runtime);
  await cleanStaleStaging(layout.runtime);
  const depth = options.verify ?? "sizes";
  // Node is checked only when it is wanted: a repair of pnpm alone runs pnpm's check on the Node that is there.
  const nodeFound = wantNode ? await reusable(ctx, "node", nodeName, depth) : { there: await existingRuntime(layout.nodeDir, nodeName, layout.runtime) };
  const pnpmFound = wantPnpm ? await reusable(ctx, "pnpm", pnpmName, depth) : { there: false };
  const nodeThere = nodeFound.there;
  const pnpmThere = pnpmFound.there;
  const again = <T extends RuntimeOutcome>(outcome: T, found: { repaired?: string }): T =>
    found.repaired ? { ...outcome, repaired: found.repaired } : outcome;
  const pending: PendingArchive[] = [];
  let beforeFailed = false;
  try {
    const nodeArchive = wantNode && !nodeThere ? nodePending(ctx) : null;
    if (nodeArchive) pending.push(nodeArchive);
    const source = options.pnpmSource ?? ctx.source;
    let pnpmArchive = wantPnpm && !pnpmThere && typeof source !== "function" ? pnpmPending(ctx, source) : null;
    if (pnpmArchive) pending.push(pnpmArchive);

    await options.before?.catch((error: unknown) => {
      beforeFailed = true;
      throw error;
    });
    if (options.before) stepMark("runtime:before-passed", ctx.env);
    if (nodeArchive && pnpmArchive) {
      const both = await bothAtOnce(ctx, nodeArchive, pnpmArchive);
      return { node: again(both.node, nodeFound), pnpm: again(both.pnpm, pnpmFound) };
    }
    let node: RuntimeOutcome;
    if (nodeArchive) {
      node = again(await installRuntime(ctx, nodeRecipe(ctx, nodeArchive)), nodeFound);
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
    const pnpm = again(await installRuntime(ctx, pnpmRecipe(ctx, pnpmArchive)), pnpmFound);
    return { node, pnpm };
  } finally {
    await Promise.all(pending.map((p) => p.discard()));
    // The check that had to pass first failed: with the downloads gone, so goes the runtime folder this run made.
    if (beforeFailed && !hadRuntimeDir) await rmdir(layout.runtime).catch(() => undefined);
  }
}

/** A marked folder of ours that can be reused as it is; one that cannot is set aside, and why is kept for the outcome. */
async function reusable(ctx: RuntimeContext, name: OurRuntime, label: string, depth: VerifyDepth): Promise<{ there: boolean; repaired?: string }> {
  if (!(await existingRuntime(runtimeDir(ctx.layout, name), label, ctx.layout.runtime))) return { there: false };
  const repaired = await setAsideIfBroken(ctx.layout, name, ctx.env, depth);
  return repaired ? { there: false, repaired } : { there: true };
}

/** Node and pnpm, both to be installed: staged and checked together (./both-at-once.ts), then published, Node first. */
async function bothAtOnce(ctx: RuntimeContext, nodeArchive: PendingArchive, pnpmArchive: PendingArchive): Promise<RuntimesOutcome> {
  let stagedNode = "";
  const pnpm = pnpmRecipe(ctx, pnpmArchive, () => nodeIn(stagedNode, ctx.layout.platform === "win32"));
  return stageBoth<Staged, RuntimesOutcome>((executableWhole) => {
    const node = nodeRecipe(ctx, nodeArchive, executableWhole);
    return {
      stageNode: () => stageRuntime(ctx, node),
      stagePnpm: () => stageRuntime(ctx, pnpm),
      checkNode: (staged) => node.check(staged.dir),
      checkPnpm: (staged, nodeDir) => {
        stagedNode = nodeDir;
        return pnpm.check(staged.dir);
      },
      publish: async (nodeStaged, nodeMarker, pnpmStaged, pnpmMarker) => {
        stepMark("runtime:checked", ctx.env);
        return { node: await publishRuntime(ctx, node, nodeStaged, nodeMarker), pnpm: await publishRuntime(ctx, pnpm, pnpmStaged, pnpmMarker) };
      },
      remove: (dir) => rm(dir, { recursive: true, force: true }),
    };
  });
}
