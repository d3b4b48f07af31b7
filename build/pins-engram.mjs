/**
 * The Engram part of build/verify-pins.mjs, and the list of null pins its
 * --release mode refuses. Everything here is pure (text and objects in, text
 * and objects out) except fetchEngramSources(), whose base URLs are
 * parameters only so a test can point it at a local server; verify-pins.mjs
 * always calls it with the defaults below.
 */
import * as path from "node:path";

/** Where Engram release assets are downloaded from (the same as ENGRAM_RELEASES in src/core/source.ts). */
export const ENGRAM_RELEASES = "https://github.com/Gentleman-Programming/engram/releases/download";
/** The GitHub REST API root of the Engram repository (release by tag: `/releases/tags/v<version>`). */
export const ENGRAM_API = "https://api.github.com/repos/Gentleman-Programming/engram";

const SHA256 = /^[0-9a-f]{64}$/;

/**
 * Parses a checksums.txt (`<sha256>  <name>` a line, as sha256sum writes it;
 * a `*` before the name marks binary mode and is dropped). Blank lines are
 * skipped; any other line that is not a lower-case sha256 and a name throws,
 * and so does a name listed twice with two different hashes.
 * @param {string} text
 * @returns {Map<string, string>} asset name -> sha256
 */
export function parseChecksums(text) {
  const sums = new Map();
  const lines = text.split(/\r?\n/);
  lines.forEach((line, index) => {
    if (!line.trim()) return;
    const match = /^([0-9a-f]{64}) [ *](\S(?:.*\S)?)\s*$/.exec(line);
    if (!match) throw new Error(`checksums.txt line ${index + 1} is not "<sha256>  <name>": ${JSON.stringify(line)}`);
    const [, sha256, name] = match;
    const earlier = sums.get(name);
    if (earlier !== undefined && earlier !== sha256) throw new Error(`checksums.txt lists ${name} twice with different hashes`);
    sums.set(name, sha256);
  });
  return sums;
}

/**
 * The asset sizes of a GitHub release, from the REST API's release object
 * (`assets[].name`, `assets[].size`). Throws when the object has no assets
 * list or an asset has no name or no whole, positive size.
 * @param {unknown} release the parsed JSON of `GET /repos/{owner}/{repo}/releases/tags/{tag}`
 * @returns {Map<string, number>} asset name -> size in bytes
 */
export function parseAssetSizes(release) {
  const assets = release?.assets;
  if (!Array.isArray(assets)) throw new Error("the release has no assets list");
  const sizes = new Map();
  for (const asset of assets) {
    const { name, size } = asset ?? {};
    if (typeof name !== "string" || !name) throw new Error(`a release asset has no name: ${JSON.stringify(asset)}`);
    if (!Number.isSafeInteger(size) || size <= 0) throw new Error(`release asset ${name} has no valid size: ${JSON.stringify(size)}`);
    sizes.set(name, size);
  }
  return sizes;
}

/**
 * Each pinned Engram archive next to what the two sources say about its asset
 * (the basename of the pin's path). A value the source does not list is
 * undefined.
 * @param {import("../src/pins/types").Pins} pins
 * @param {Map<string, string>} checksums from parseChecksums
 * @param {Map<string, number>} sizes from parseAssetSizes
 */
export function engramEntries(pins, checksums, sizes) {
  return Object.entries(pins.engram.archives).map(([target, pin]) => {
    const name = path.posix.basename(pin.path);
    return { target, name, pin, sha256: checksums.get(name), size: sizes.get(name) };
  });
}

/**
 * What verify-pins checks for Engram: a `[what, pinned, source]` triple for
 * every non-null pin value (equal or not), and a note for every null one,
 * saying what the source has for it.
 * @param {ReturnType<typeof engramEntries>} entries
 * @returns {{ checks: [string, string | number, string | number | undefined][], notes: string[] }}
 */
export function compareEngram(entries) {
  const checks = [];
  const notes = [];
  for (const { target, name, pin, sha256, size } of entries) {
    for (const [field, pinned, published] of [
      ["sha256", pin.sha256, sha256],
      ["size", pin.size, size],
    ]) {
      if (pinned !== null) checks.push([`engram ${name} ${field}`, pinned, published]);
      else {
        const source = published === undefined ? "the source does not list it" : `the source says ${published}`;
        notes.push(`engram ${target}: ${field} is null (memory is disabled for this target); ${source}`);
      }
    }
  }
  return { checks, notes };
}

/**
 * The values --record-engram writes: every archive's sha256 and size as the
 * sources give them, or the list of what a source does not give (then
 * nothing is written).
 * @param {ReturnType<typeof engramEntries>} entries
 * @returns {{ records: Record<string, { sha256: string, size: number }> } | { missing: string[] }}
 */
export function engramRecords(entries) {
  const missing = [];
  const records = {};
  for (const { target, name, sha256, size } of entries) {
    if (sha256 === undefined) missing.push(`${name} in checksums.txt`);
    if (size === undefined) missing.push(`${name} in the release's asset list`);
    records[target] = { sha256, size };
  }
  if (entries.length === 0) missing.push("any Engram archive in src/pins/production.ts");
  return missing.length ? { missing } : { records };
}

/**
 * engram.source of production.ts for this version; "(not yet recorded)"
 * while the archives are not.
 * @param {string} version
 * @param {boolean} recorded
 */
export function engramSourceText(version, recorded) {
  const text = `Engram v${version} GitHub release: sha256 from its checksums.txt, sizes from its asset list`;
  return recorded ? text : `${text} (not yet recorded)`;
}

/**
 * Rewrites the Engram archive lines of production.ts's text
 * (`"<target>": engramArchive("<target>", <sha256|null>, <size|null>),`) and
 * engram.source, and nothing else. Throws, changing nothing, when a target
 * has not exactly one such line, a value is not a sha256 or a size, or the
 * engram block does not name `version`.
 * @param {string} text production.ts
 * @param {string} version pins.engram.version
 * @param {Record<string, { sha256: string, size: number }>} records from engramRecords
 * @returns {string} the new text
 */
export function rewriteEngramPins(text, version, records) {
  let out = text;
  for (const [target, { sha256, size }] of Object.entries(records)) {
    if (!SHA256.test(sha256)) throw new Error(`engram ${target}: ${JSON.stringify(sha256)} is not a sha256`);
    if (!Number.isSafeInteger(size) || size <= 0) throw new Error(`engram ${target}: ${JSON.stringify(size)} is not a size`);
    const key = JSON.stringify(target).replace(/[.*+?^${}()|[\]\\-]/g, "\\$&");
    const line = new RegExp(`^( *)${key}: engramArchive\\(${key}, (?:null|"[0-9a-f]{64}"), (?:null|\\d+)\\),$`, "gm");
    const found = out.match(line)?.length ?? 0;
    if (found !== 1) throw new Error(`src/pins/production.ts has ${found} engramArchive lines for ${target}, not one`);
    out = out.replace(line, (_, indent) => `${indent}"${target}": engramArchive("${target}", "${sha256}", ${size}),`);
  }
  // \r?\n: a checkout with CRLF line endings (Git on Windows) is read as it is.
  const source = /(\r?\n *engram: \{\r?\n *version: )("[^"\r\n]*")(,\r?\n *source: )"[^"\r\n]*"/g;
  const blocks = [...out.matchAll(source)];
  if (blocks.length !== 1) throw new Error(`src/pins/production.ts has ${blocks.length} engram blocks starting with version and source, not one`);
  if (blocks[0][2] !== JSON.stringify(version)) throw new Error(`src/pins/production.ts's engram block has version ${blocks[0][2]}, not "${version}"`);
  return out.replace(source, (_, head, ver, mid) => `${head}${ver}${mid}${JSON.stringify(engramSourceText(version, true))}`);
}

/**
 * Every pin a release cannot ship with that is null: the Node archives'
 * sha256, pnpm's integrity, the Go archives' sha256 and size, the Engram
 * archives' sha256 and size, the Engram schema, the fd and ripgrep archives'
 * sha256 and size, and the release signing key. (Node's sizes and the
 * pnpm file's own sha256/size are null by design: nodejs.org publishes no
 * sizes, and the pnpm tarball is checked by its integrity.)
 * @param {import("../src/pins/types").Pins} pins
 * @returns {string[]} one entry per null pin, e.g. `engram linux-x64 sha256`
 */
export function nullPins(pins) {
  const found = [];
  const archives = (kind, archives, fields) => {
    for (const [target, pin] of Object.entries(archives)) {
      for (const field of fields) if (pin[field] === null || pin[field] === undefined) found.push(`${kind} ${target} ${field}`);
    }
  };
  archives("node", pins.node.archives, ["sha256"]);
  if (!pins.pnpm.integrity) found.push(`pnpm ${pins.pnpm.version} integrity`);
  archives("go", pins.go.archives, ["sha256", "size"]);
  archives("engram", pins.engram.archives, ["sha256", "size"]);
  if (pins.engram.schema === null || pins.engram.schema === undefined) found.push("engram schema");
  // Pi's own tools: a release provisions verified ones, never leaves them to Pi's unchecked download.
  for (const tool of ["fd", "ripgrep"]) archives(tool, pins.tools?.[tool]?.archives ?? {}, ["sha256", "size"]);
  // A release whose binaries know no signing key could verify no release at all, its own included.
  if (!pins.release?.keys?.length) found.push("release signing key");
  // The release's one Pi pin: release.yml builds the distribution with it.
  if (!pins.release?.pi) found.push("release Pi");
  return found;
}

/**
 * verify-pins.mjs's mode from its arguments: none (verify; null pins are
 * notes), `--release` (verify; any null pin fails), `--record-engram` or
 * `--record-tools`.
 * Anything else throws.
 * @param {string[]} args process.argv.slice(2)
 * @returns {"verify" | "release" | "record-engram" | "record-tools"}
 */
export function parseMode(args) {
  if (args.length === 0) return "verify";
  if (args.length === 1 && args[0] === "--release") return "release";
  if (args.length === 1 && args[0] === "--record-engram") return "record-engram";
  if (args.length === 1 && args[0] === "--record-tools") return "record-tools";
  throw new Error(`usage: node build/verify-pins.mjs [--release | --record-engram | --record-tools] (got ${args.join(" ")})`);
}

/**
 * Reads a URL's text; a network error or a non-2xx status throws, naming the URL.
 * @param {string} url
 * @param {RequestInit} [init]
 */
export async function getText(url, init) {
  let response;
  try {
    response = await fetch(url, init);
  } catch (error) {
    throw new Error(`cannot read ${url}: ${error.cause?.message ?? error.message}`);
  }
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
  return response.text();
}

/**
 * Reads Engram v<version>'s checksums.txt (`<releases>/v<version>/checksums.txt`)
 * and its asset sizes (`<api>/releases/tags/v<version>`).
 * @param {string} version e.g. "3.5.2"
 * @param {{ releases: string, api: string }} [bases] the defaults are the real sources; only tests pass others
 * @returns {Promise<{ checksums: Map<string, string>, sizes: Map<string, number> }>}
 */
export async function fetchEngramSources(version, bases = { releases: ENGRAM_RELEASES, api: ENGRAM_API }) {
  const tag = `v${version}`;
  const [sums, release] = await Promise.all([
    getText(`${bases.releases}/${tag}/checksums.txt`),
    getText(`${bases.api}/releases/tags/${tag}`, {
      headers: { accept: "application/vnd.github+json", "x-github-api-version": "2022-11-28", "user-agent": "gentle-shell-setup verify-pins" },
    }),
  ]);
  let parsed;
  try {
    parsed = JSON.parse(release);
  } catch {
    throw new Error(`${bases.api}/releases/tags/${tag} is not JSON`);
  }
  return { checksums: parseChecksums(sums), sizes: parseAssetSizes(parsed) };
}
