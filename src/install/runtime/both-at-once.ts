/**
 * Node and pnpm staged and checked together (spec: "Ownership rules",
 * Runtimes), each check as early as its bytes allow:
 *
 *   - both archives are extracted at once;
 *   - pnpm's check runs on the staged node (the same verified bytes) as soon
 *     as pnpm's folder is complete and node's executable is whole, while
 *     npm's files are still being extracted; from an archive that says
 *     nothing of its executable (a zip), once node's folder is complete;
 *   - node's and npm's checks run once node's folder is complete;
 *   - nothing is published until every check passed; a failure is node's
 *     first, as the serial order would have failed;
 *   - whatever fails, every staging folder made goes, and only after every
 *     check started has ended (a check runs from those folders).
 *
 * The steps are handed in, so the order is held by a test with no archive.
 */

/** A staged runtime: at least its folder. */
export interface StagedFolder {
  dir: string;
}

export interface BothSteps<S extends StagedFolder, R> {
  stageNode(): Promise<S>;
  stagePnpm(): Promise<S>;
  checkNode(node: S): Promise<string>;
  /** pnpm's check, run with the node executable of the staging folder `nodeDir`. */
  checkPnpm(pnpm: S, nodeDir: string): Promise<string>;
  /** Both checks passed: publish, node first. */
  publish(node: S, nodeMarker: string, pnpm: S, pnpmMarker: string): Promise<R>;
  remove(dir: string): Promise<void>;
}

/**
 * `make` gets the call that says node's executable is whole (with its staging folder), for node's staging to make
 * (an archive that says nothing of its executable never makes it), and returns the steps.
 */
export async function stageBoth<S extends StagedFolder, R>(make: (executableWhole: (dir: string) => void) => BothSteps<S, R>): Promise<R> {
  let executableWhole: (dir: string) => void = () => undefined;
  const executable = new Promise<string>((resolve) => (executableWhole = resolve));
  const steps = make(executableWhole);
  const node = steps.stageNode();
  const pnpm = steps.stagePnpm();
  const pnpmChecked = pnpm.then(async (staged) => steps.checkPnpm(staged, await Promise.race([executable, node.then((s) => s.dir)])));
  // Awaited below; this only keeps its failure from being reported as unhandled while node's is awaited first.
  pnpmChecked.catch(() => undefined);
  const staged = await Promise.allSettled([node, pnpm]);
  try {
    const [nodeStaged, pnpmStaged] = staged.map(settledValue);
    const [nodeMarker, pnpmMarker] = (await Promise.allSettled([steps.checkNode(nodeStaged!), pnpmChecked])).map(settledValue);
    return await steps.publish(nodeStaged!, nodeMarker!, pnpmStaged!, pnpmMarker!);
  } finally {
    await pnpmChecked.catch(() => undefined);
    await Promise.all(staged.flatMap((s) => (s.status === "fulfilled" ? [steps.remove(s.value.dir)] : [])));
  }
}

/** A settled promise's value, or its reason thrown: node's first, as the serial order would have failed. */
function settledValue<T>(settled: PromiseSettledResult<T>): T {
  if (settled.status === "rejected") throw settled.reason;
  return settled.value;
}
