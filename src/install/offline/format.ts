/**
 * The offline bundle's format (design: "Sources: one layout for official,
 * mirror and offline"; spec: "One lockfile for every system"): its file
 * names and limits, the manifest, SHA256SUMS and the README text. Pure: no
 * file system, process or network; src/install/offline/open.ts reads a
 * bundle, src/install/offline/make.ts writes one.
 *
 * A bundle is a folder a user copies to a USB stick and installs from on a
 * machine with no network at all. It is the source layout plus what pnpm
 * would otherwise fetch from the registry:
 *
 *     offline-bundle.json                 the manifest (below); its presence makes a folder a bundle
 *     SHA256SUMS                          `<sha256>  <path>` for every other file (`sha256sum -c SHA256SUMS`)
 *     README.txt                          what to run, in plain words
 *     gentle-shell-setup-<target>[.exe]   the installer binaries that were at hand
 *     node/v<node>/node-v<node>-<target>.tar.gz (.zip on Windows)   one per target
 *     pnpm/pnpm-<pnpm>.tgz
 *     go/go<go>.windows-<arch>.zip        Windows targets only (gentle-pi builds Gentle AI with our Go there)
 *     engram/v<engram>/engram_<engram>_<os>_<arch>.tar.gz   only for targets whose Engram is pinned
 *     releases/v<shell>/gentle-shell-distribution.json, gentle-shell-distribution-lock.yaml
 *     pnpm-store.tar.gz                   pnpm's store, filled by `pnpm fetch` from the release lockfile
 *
 * offline-bundle.json: { schema: 1, shell, pi, id, targets, store, files }
 * (`files`: every path SHA256SUMS lists, sorted).
 *
 * The bundle's own SHA256SUMS guards only what no pin covers: the store
 * archive and the two release assets. (It catches a damaged stick; it is no
 * signature, and nothing in a bundle can loosen a pin.) A bundle holds
 * exactly one release; the manifest names it, so an offline install asks no
 * registry for `latest`.
 */
import { assertExactVersion } from "../../core/versions";
import { TARGETS, type Target } from "../../pins/types";

export const BUNDLE_MANIFEST = "offline-bundle.json";
export const BUNDLE_SUMS = "SHA256SUMS";
export const BUNDLE_README = "README.txt";
export const BUNDLE_STORE = "pnpm-store.tar.gz";

export const MiB = 1024 * 1024;
/** Caps for what the bundle's SHA256SUMS guards (no pin sets them). */
export const STORE_ARCHIVE_MAX = 4096 * MiB;
export const STORE_EXPANDED_MAX = 16 * 1024 * MiB;
export const STORE_MEMBERS_MAX = 500_000;
export const MANIFEST_MAX = 1 * MiB;
export const SUMS_MAX = 1 * MiB;

export interface BundleManifest {
  schema: 1;
  shell: string;
  pi: string;
  id: string;
  targets: Target[];
  store: string;
  files: string[];
}

/** The installer binary's name for a target, in a release and in a bundle. */
export function installerName(target: Target): string {
  return `gentle-shell-setup-${target}${target.startsWith("win-") ? ".exe" : ""}`;
}

/** `pnpm fetch` flags for the systems of `targets` (design: "Facts measured", pnpm and offline). */
export function fetchSystemFlags(targets: readonly Target[]): string[] {
  const os = new Set<string>();
  const cpu = new Set<string>();
  for (const t of targets) {
    const [o, a] = t.split("-") as [string, string];
    os.add(o === "win" ? "win32" : o);
    cpu.add(a);
  }
  const flags: string[] = [];
  for (const o of [...os].sort()) flags.push("--os", o);
  for (const a of [...cpu].sort()) flags.push("--cpu", a);
  // Our Node archives are glibc builds, but a musl package may be what a glibc system's optional dependency resolves to: both.
  if (os.has("linux")) flags.push("--libc", "glibc", "--libc", "musl");
  return flags;
}

/** `<sha256>  <path>` lines, sorted by path: what `sha256sum -c` reads. */
export function formatSums(sums: Map<string, string>): string {
  return [...sums.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([path, hash]) => `${hash}  ${path}\n`)
    .join("");
}

export function parseSums(text: string): Map<string, string> {
  const sums = new Map<string, string>();
  for (const [i, raw] of text.split("\n").entries()) {
    const line = raw.replace(/\r$/, "");
    if (!line) continue;
    const m = /^([0-9a-f]{64}) [ *](.+)$/.exec(line);
    if (!m || unsafeRelative(m[2]!) || sums.has(m[2]!)) throw new Error(`${BUNDLE_SUMS} line ${i + 1} is not \`<sha256>  <path>\` for a file of the bundle`);
    sums.set(m[2]!, m[1]!);
  }
  return sums;
}

/** Not a plain relative path inside the bundle: absolute, a drive, a backslash, or a `..`, `.` or empty segment. */
export function unsafeRelative(path: string): boolean {
  return path.startsWith("/") || /^[A-Za-z]:/.test(path) || path.includes("\\") || path.split("/").some((s) => s === ".." || s === "." || s === "");
}

export function readBundleManifest(text: string): BundleManifest {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    throw new Error(`${BUNDLE_MANIFEST} is not valid JSON`);
  }
  const d = data as Partial<Record<keyof BundleManifest, unknown>>;
  if (typeof data !== "object" || data === null || Array.isArray(data)) throw new Error(`${BUNDLE_MANIFEST} is not a JSON object`);
  if (d.schema !== 1) throw new Error(`${BUNDLE_MANIFEST} has schema ${JSON.stringify(d.schema)}; this installer reads schema 1`);
  const shell = assertExactVersion("the bundle's gentle-pi version", d.shell);
  const pi = assertExactVersion("the bundle's Pi version", d.pi);
  if (d.id !== `${shell}-${pi}`) throw new Error(`${BUNDLE_MANIFEST} names id ${JSON.stringify(d.id)}, expected ${shell}-${pi}`);
  if (!Array.isArray(d.targets) || !d.targets.every((t) => (TARGETS as readonly unknown[]).includes(t))) {
    throw new Error(`${BUNDLE_MANIFEST} does not list its targets`);
  }
  if (d.store !== BUNDLE_STORE) throw new Error(`${BUNDLE_MANIFEST} names store ${JSON.stringify(d.store)}, expected ${BUNDLE_STORE}`);
  if (!Array.isArray(d.files) || !d.files.every((f) => typeof f === "string" && !unsafeRelative(f))) {
    throw new Error(`${BUNDLE_MANIFEST} does not list its files`);
  }
  return { schema: 1, shell, pi, id: d.id as string, targets: d.targets as Target[], store: BUNDLE_STORE, files: d.files as string[] };
}

/** README.txt: what to run, in plain words. */
export function bundleReadme(manifest: BundleManifest): string {
  const first = manifest.targets[0]!;
  return `Gentle Shell ${manifest.shell} (Pi ${manifest.pi}): offline bundle
=====================================================

Installs Gentle Shell on a machine with no network at all, for:
${manifest.targets.map((t) => `  - ${t}`).join("\n")}

1. Copy this folder to the machine (a read-only stick is fine: the installer
   copies what it needs and never writes here).
2. Optionally check it:  sha256sum -c ${BUNDLE_SUMS}
3. From this folder, run the installer for the machine with the folder's
   full path, for example:

     ./${installerName(first)} install --source "$PWD"

   (Windows PowerShell: .\\gentle-shell-setup-win-x64.exe install --source "$PWD")
   The path is remembered: \`gentle-shell setup\` takes Engram from here later,
   if the folder is still there.

Node, pnpm, Go and Engram are checked against the checksums built into the
installer, exactly as when they are downloaded; ${BUNDLE_SUMS} guards the rest
(the pnpm store ${BUNDLE_STORE} and the release files under releases/).
${BUNDLE_MANIFEST} names the release this bundle installs.
`;
}
