/**
 * The offline bundle's format (design: "Sources: one layout for official,
 * mirror and offline"; spec: "One lockfile for every system"): its file
 * names and limits, the manifest, SHA256SUMS and the README text. Pure: no
 * file system, process or network; src/install/offline/open.ts reads a
 * bundle, src/release/offline-bundle.ts writes one.
 *
 * A bundle is a folder a user copies to a USB stick and installs from on a
 * machine with no network at all. It is the source layout plus the packages
 * pnpm would otherwise fetch from the registry:
 *
 *     offline-bundle.json                 the manifest (below); its presence makes a folder a bundle
 *     SHA256SUMS                          `<sha256>  <path>` for every other file (`sha256sum -c SHA256SUMS`)
 *     README.txt                          what to run and how to check the stick first, in plain words
 *     install.sh, install.cmd             the launchers (./launchers.ts): this machine's installer, --source this folder
 *     gentle-shell-setup-<target>[.exe]   the release's own installer binaries that were at hand
 *     node/v<node>/node-v<node>-<target>.tar.gz (.zip on Windows)   one per target
 *     pnpm/pnpm-<pnpm>.tgz
 *     go/go<go>.windows-<arch>.zip        Windows targets only (gentle-pi builds Gentle AI with our Go there)
 *     engram/v<engram>/engram_<engram>_<os>_<arch>.tar.gz   only for targets whose Engram is pinned
 *     fd/v<fd>/fd-v<fd>-<suffix>, ripgrep/<rg>/ripgrep-<rg>-<suffix>   Pi's own tools, only where pinned
 *     releases/v<shell>/                  the signed release: gentle-shell-release.json and .sig, the two
 *                                         distribution assets and the engine, byte for byte as published
 *     packages/<name>/-/<base>-<version>.tgz   every registry tarball of the lockfile the targets install
 *
 * offline-bundle.json: { schema: 2, shell, pi, id, targets, packages, files }
 * (`packages`: how many tarballs; `files`: every path SHA256SUMS lists, sorted).
 *
 * Trust does not come from the bundle: the runtimes are checked against the
 * compiled-in pins, the release against its signed manifest, and each
 * tarball against the integrity the signed lockfile records (pnpm checks it
 * again as it installs). SHA256SUMS only names a damaged copy early.
 */
import { assertExactVersion } from "../../core/versions";
import { TARGETS, type Target } from "../../pins/types";

export const BUNDLE_MANIFEST = "offline-bundle.json";
export const BUNDLE_SUMS = "SHA256SUMS";
export const BUNDLE_README = "README.txt";
export const BUNDLE_PACKAGES = "packages";

export const MiB = 1024 * 1024;
/** The largest package tarball a bundle carries (the lockfile's integrity decides its bytes). */
export const PACKAGE_MAX = 512 * MiB;
export const MANIFEST_MAX = 1 * MiB;
export const SUMS_MAX = 1 * MiB;

export interface BundleManifest {
  schema: 2;
  shell: string;
  pi: string;
  id: string;
  targets: Target[];
  /** How many package tarballs are under packages/. */
  packages: number;
  files: string[];
}

/** The installer binary's name for a target, in a release and in a bundle. */
export function installerName(target: Target): string {
  return `gentle-shell-setup-${target}${target.startsWith("win-") ? ".exe" : ""}`;
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

/** `where`: the bundle's folder, named with the file in every refusal. */
export function readBundleManifest(text: string, where?: string): BundleManifest {
  const file = where ? `${BUNDLE_MANIFEST} in ${where}` : BUNDLE_MANIFEST;
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    throw new Error(`${file} is not valid JSON: the bundle is damaged; copy it again`);
  }
  const d = data as Partial<Record<keyof BundleManifest, unknown>>;
  if (typeof data !== "object" || data === null || Array.isArray(data)) throw new Error(`${file} is not a JSON object`);
  if (d.schema === 1) {
    throw new Error("this offline bundle was made by an older gentle-shell-setup, without a signed release or checkable packages; make it again with this one");
  }
  if (d.schema !== 2) throw new Error(`${file} has schema ${JSON.stringify(d.schema)}; this installer reads schema 2`);
  let shell: string;
  let pi: string;
  try {
    shell = assertExactVersion("the bundle's gentle-pi version", d.shell);
    pi = assertExactVersion("the bundle's Pi version", d.pi);
  } catch (error) {
    throw new Error(`${file} is not a valid offline bundle manifest: ${(error as Error).message}`);
  }
  if (d.id !== `${shell}-${pi}`) throw new Error(`${file} names id ${JSON.stringify(d.id)}, expected ${shell}-${pi}`);
  if (!Array.isArray(d.targets) || !d.targets.every((t) => (TARGETS as readonly unknown[]).includes(t))) {
    throw new Error(`${file} does not list its targets`);
  }
  if (!Number.isSafeInteger(d.packages) || (d.packages as number) < 0) throw new Error(`${file} does not count its packages`);
  if (!Array.isArray(d.files) || !d.files.every((f) => typeof f === "string" && !unsafeRelative(f))) {
    throw new Error(`${file} does not list its files`);
  }
  return { schema: 2, shell, pi, id: d.id as string, targets: d.targets as Target[], packages: d.packages as number, files: d.files as string[] };
}

/** README.txt: what to run, and how to check a stick first, in plain words. */
export function bundleReadme(manifest: BundleManifest): string {
  const first = manifest.targets[0]!;
  return `Gentle Shell ${manifest.shell} (Pi ${manifest.pi}): offline bundle
=====================================================

Installs Gentle Shell on a machine with no network at all, for:
${manifest.targets.map((t) => `  - ${t}`).join("\n")}

Before you run anything from a stick you did not make yourself, check it
with a gentle-shell-setup you already trust (one you downloaded and checked,
or the one inside an existing install). A program on the stick can vouch
only for itself, so do not use the stick's own for this:

     gentle-shell-setup verify /path/to/this/folder

It checks the release's signature, every file the signed release lists
(the installer binaries included), the two launchers, the runtimes against
the checksums built into the installer, and each of the ${manifest.packages} packages under ${BUNDLE_PACKAGES}/ against the
signed lockfile. An existing install can run the same check:
gentle-shell upgrade --source /path/to/this/folder checks it before it
changes anything.

1. Copy this folder to the machine (a read-only stick is fine: the installer
   never writes here).
2. Run the launcher for the machine: install.cmd on Windows (double-click
   it), install.sh on macOS and Linux (sh install.sh, from anywhere). It runs
   this machine's installer from this folder with the folder as its source,
   and passes its arguments on (--yes: ask nothing). By hand, the same is:

     ./${installerName(first)} install --source "$PWD"

   (Windows PowerShell: .\\gentle-shell-setup-win-x64.exe install --source "$PWD")
   The path is remembered: \`gentle-shell setup\` takes Engram, and the
   launcher Pi's fd and ripgrep, from here later, if the folder is still there.

During the install, the packages are handed to pnpm by a small server on
127.0.0.1 that lives only as long as the install, and pnpm checks each one
against the signed lockfile. ${BUNDLE_SUMS} (\`sha256sum -c ${BUNDLE_SUMS}\`)
only tells a damaged copy early; it is no signature.
`;
}
