/**
 * The release's pnpm project, its distribution (spec: "Distribution and
 * lockfile", "Release distribution assets"): the package.json and
 * pnpm-workspace.yaml a version is installed from, and the lockfile with
 * them. A release is the pair (gentle-pi <shell>, Pi <pi>)
 * plus the pnpm lockfile resolved once from exactly `distributionFiles()`.
 * Everything here is plain data: the same inputs give the same bytes.
 */
import { createHash } from "node:crypto";
import { PI_PACKAGE, SHELL_PACKAGE } from "./package-names";
import { assertExactVersion } from "./versions";

export { PI_PACKAGE, SHELL_PACKAGE };
export const DISTRIBUTION_JSON = "gentle-shell-distribution.json";
export const DISTRIBUTION_LOCK = "gentle-shell-distribution-lock.yaml";

export interface ReleaseManifest {
  shell: string;
  pi: string;
}

export interface DistributionFiles {
  "package.json": string;
  "pnpm-workspace.yaml": string;
}

export interface Distribution {
  manifest: ReleaseManifest & { id: string };
  lockfile: string;
  files: DistributionFiles;
}

/**
 * What installVersion installs: a release's verified distribution, or the
 * same files for another Pi with `lockfile: null`, which pnpm then resolves
 * (an upgrade that keeps a newer active Pi). A release's lockfile only ever
 * goes with the exact pair it was resolved for.
 */
export type VersionProject = Omit<Distribution, "lockfile"> & { lockfile: string | null };

/**
 * The project the release lockfile is resolved from and installed with.
 * `allowBuilds` lets only gentle-pi's build run; `strictDepBuilds: false`
 * makes Pi's other build scripts skipped rather than fatal; the workspace
 * file also stops pnpm's upward search for parent settings.
 */
export function distributionFiles(manifest: ReleaseManifest): DistributionFiles {
  const shell = assertExactVersion("gentle-pi version", manifest.shell);
  const pi = assertExactVersion("Pi version", manifest.pi);
  const pkg = {
    name: "gentle-shell-release",
    version: shell,
    private: true,
    dependencies: {
      [PI_PACKAGE]: pi,
      [SHELL_PACKAGE]: shell,
    },
  };
  return {
    "package.json": JSON.stringify(pkg, null, 2) + "\n",
    "pnpm-workspace.yaml": "allowBuilds:\n  gentle-pi: true\nstrictDepBuilds: false\n",
  };
}

export function sha256Hex(text: string | Buffer): string {
  return createHash("sha256").update(text).digest("hex");
}

export interface GeneratedWith {
  node: string;
  pnpm: string;
}

/** gentle-shell-distribution.json, fixed key order, newline-terminated. */
export function distributionAsset(manifest: ReleaseManifest, lockfile: string, generatedWith: GeneratedWith): string {
  const files = distributionFiles(manifest);
  const asset = {
    schema: 1,
    shell: manifest.shell,
    pi: manifest.pi,
    id: `${manifest.shell}-${manifest.pi}`,
    generatedWith: { node: generatedWith.node, pnpm: generatedWith.pnpm },
    files: { "package.json": files["package.json"], "pnpm-workspace.yaml": files["pnpm-workspace.yaml"] },
    lockfile: { name: DISTRIBUTION_LOCK, sha256: sha256Hex(lockfile) },
  };
  return JSON.stringify(asset, null, 2) + "\n";
}

/**
 * Accepts a release only when its versions are exact, the lockfile matches
 * the recorded sha256 and the files are exactly what installVersion writes.
 * generatedWith is recorded, never compared. `where` (a folder, or "the
 * mirror <url>") is named in every refusal, with the file: a damaged file is
 * said to be one, never reported by the first field it lacks.
 */
export function readDistribution(json: string, lockfile: string, where?: string): Distribution {
  const file = where ? `${DISTRIBUTION_JSON} from ${where}` : DISTRIBUTION_JSON;
  let data: unknown;
  try {
    data = JSON.parse(json);
  } catch {
    throw new Error(`${file} is not valid JSON: the file is damaged; get it again`);
  }
  if (!isObject(data)) throw new Error(`${file} is not a JSON object`);
  if (data.schema !== 1) throw new Error(`${file} has schema ${JSON.stringify(data.schema)}; this installer reads schema 1`);
  let shell: string;
  let pi: string;
  try {
    shell = assertExactVersion("the release's gentle-pi version", data.shell);
    pi = assertExactVersion("the release's Pi version", data.pi);
  } catch (error) {
    throw new Error(`${file} is not a valid Gentle Shell distribution: ${(error as Error).message}`);
  }
  const id = `${shell}-${pi}`;
  if (data.id !== id) throw new Error(`${file} names id ${JSON.stringify(data.id)}, expected ${id}`);
  const expected = distributionFiles({ shell, pi });
  const files = data.files;
  if (
    !isObject(files) ||
    Object.keys(files).sort().join(",") !== "package.json,pnpm-workspace.yaml" ||
    files["package.json"] !== expected["package.json"] ||
    files["pnpm-workspace.yaml"] !== expected["pnpm-workspace.yaml"]
  ) {
    throw new Error(`${file} for ${id} does not carry exactly the files this installer installs`);
  }
  const lock = data.lockfile;
  if (!isObject(lock) || lock.name !== DISTRIBUTION_LOCK || typeof lock.sha256 !== "string") {
    throw new Error(`${file} for ${id} does not record its lockfile`);
  }
  const actual = sha256Hex(lockfile);
  if (!/^[0-9a-f]{64}$/.test(lock.sha256) || actual !== lock.sha256) {
    const lockName = where ? `${DISTRIBUTION_LOCK} from ${where}` : DISTRIBUTION_LOCK;
    throw new Error(`${lockName} for ${id} does not match the sha256 its distribution records (got ${actual})`);
  }
  return { manifest: { shell, pi, id }, lockfile, files: expected };
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
