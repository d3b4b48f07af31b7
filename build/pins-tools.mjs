/**
 * The fd and ripgrep part of build/verify-pins.mjs (Pi's own tools). Pure
 * except fetchToolSources(), whose base URLs are parameters only so a test
 * can point it at a local server; verify-pins.mjs calls it with the
 * defaults below.
 *
 * What each release publishes, and so what is read:
 * - fd (sharkdp/fd, tag v<version>): no checksum files; the REST API's
 *   release object gives each asset's size and `digest` ("sha256:<hex>",
 *   computed by GitHub for release assets).
 * - ripgrep (BurntSushi/ripgrep, tag <version>): `<asset>.sha256` beside each
 *   archive (`shasum -a 256` output on Unix, certutil's on Windows), and the
 *   same API for sizes (and a digest, which must then agree).
 */
import * as path from "node:path";
import { getText, parseAssetSizes } from "./pins-engram.mjs";

/** The release downloads (the same as FD_RELEASES and RIPGREP_RELEASES in src/core/source.ts) and REST API roots. */
export const TOOL_SOURCES = {
  fd: { releases: "https://github.com/sharkdp/fd/releases/download", api: "https://api.github.com/repos/sharkdp/fd", tag: (v) => `v${v}` },
  ripgrep: { releases: "https://github.com/BurntSushi/ripgrep/releases/download", api: "https://api.github.com/repos/BurntSushi/ripgrep", tag: (v) => v },
};
/** production.ts's helper per tool: `"<target>": fdArchive("<target>", <sha256|null>, <size|null>),`. */
const HELPER = { fd: "fdArchive", ripgrep: "ripgrepArchive" };
const SHA256 = /^[0-9a-f]{64}$/;

/**
 * The sha256 in a `.sha256` file: `<hex>  <name>` (shasum), or certutil's
 * "SHA256 hash of <file>:" then the hex (older certutil spaces its bytes),
 * then "CertUtil: ... completed successfully.". Anything else throws.
 * @param {string} text
 * @param {string} name the asset the file is for
 */
export function parseSha256File(text, name) {
  const lines = text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter(Boolean);
  const shasum = lines.length === 1 ? /^([0-9a-fA-F]{64}) [ *](\S+)$/.exec(lines[0]) : null;
  if (shasum) {
    if (path.posix.basename(shasum[2]) !== name) throw new Error(`${name}.sha256 names ${shasum[2]}, not ${name}`);
    return shasum[1].toLowerCase();
  }
  if (lines.length === 3 && /^SHA256 hash of /i.test(lines[0]) && /^CertUtil: /i.test(lines[2])) {
    const hex = lines[1].replace(/\s+/g, "").toLowerCase();
    if (!SHA256.test(hex)) throw new Error(`${name}.sha256 holds no sha256: ${JSON.stringify(lines[1])}`);
    if (!lines[0].includes(name)) throw new Error(`${name}.sha256 is for another file: ${JSON.stringify(lines[0])}`);
    return hex;
  }
  throw new Error(`${name}.sha256 is neither shasum's nor certutil's output: ${JSON.stringify(text.slice(0, 200))}`);
}

/**
 * The assets' `digest` ("sha256:<hex>") of an API release object; assets
 * without one are left out.
 * @param {unknown} release
 * @returns {Map<string, string>}
 */
export function parseAssetDigests(release) {
  const digests = new Map();
  for (const asset of release?.assets ?? []) {
    const m = typeof asset?.digest === "string" ? /^sha256:([0-9a-f]{64})$/.exec(asset.digest) : null;
    if (m && typeof asset.name === "string") digests.set(asset.name, m[1]);
  }
  return digests;
}

/**
 * Each pinned archive of `tool` next to what the sources say about its asset.
 * @param {import("../src/pins/types").Pins} pins
 * @param {"fd" | "ripgrep"} tool
 * @param {Map<string, string>} checksums asset name -> sha256
 * @param {Map<string, number>} sizes asset name -> size
 */
export function toolEntries(pins, tool, checksums, sizes) {
  return Object.entries(pins.tools[tool].archives).map(([target, pin]) => {
    const name = path.posix.basename(pin.path);
    return { tool, target, name, pin, sha256: checksums.get(name), size: sizes.get(name) };
  });
}

/**
 * A `[what, pinned, source]` check for every non-null value, a note for each null one.
 * @param {ReturnType<typeof toolEntries>} entries
 */
export function compareTools(entries) {
  const checks = [];
  const notes = [];
  for (const { tool, target, name, pin, sha256, size } of entries) {
    for (const [field, pinned, published] of [
      ["sha256", pin.sha256, sha256],
      ["size", pin.size, size],
    ]) {
      if (pinned !== null) checks.push([`${tool} ${name} ${field}`, pinned, published]);
      else {
        const source = published === undefined ? "the source does not list it" : `the source says ${published}`;
        notes.push(`${tool} ${target}: ${field} is null (Pi fetches its own ${tool} there); ${source}`);
      }
    }
  }
  return { checks, notes };
}

/**
 * What --record-tools writes, or what a source does not give (then nothing is written).
 * @param {ReturnType<typeof toolEntries>} entries
 */
export function toolRecords(entries) {
  const missing = [];
  const records = {};
  for (const { name, target, sha256, size } of entries) {
    if (sha256 === undefined) missing.push(`${name}'s sha256`);
    if (size === undefined) missing.push(`${name} in the release's asset list`);
    records[target] = { sha256, size };
  }
  if (entries.length === 0) missing.push("any archive in src/pins/production.ts");
  return missing.length ? { missing } : { records };
}

/**
 * Rewrites the `tool`'s archive lines of production.ts and drops its source's
 * "(null until recorded)"; throws, changing nothing, on a bad value or a
 * target without exactly one line.
 * @param {string} text
 * @param {"fd" | "ripgrep"} tool
 * @param {Record<string, { sha256: string, size: number }>} records
 */
export function rewriteToolPins(text, tool, records) {
  const helper = HELPER[tool];
  let out = text;
  for (const [target, { sha256, size }] of Object.entries(records)) {
    if (!SHA256.test(sha256)) throw new Error(`${tool} ${target}: ${JSON.stringify(sha256)} is not a sha256`);
    if (!Number.isSafeInteger(size) || size <= 0) throw new Error(`${tool} ${target}: ${JSON.stringify(size)} is not a size`);
    const key = JSON.stringify(target).replace(/[.*+?^${}()|[\]\\-]/g, "\\$&");
    const line = new RegExp(`^( *)${key}: ${helper}\\(${key}, (?:null|"[0-9a-f]{64}"), (?:null|\\d+)\\),$`, "gm");
    const found = out.match(line)?.length ?? 0;
    if (found !== 1) throw new Error(`src/pins/production.ts has ${found} ${helper} lines for ${target}, not one`);
    out = out.replace(line, (_, indent) => `${indent}"${target}": ${helper}("${target}", "${sha256}", ${size}),`);
  }
  // \r?\n: a checkout with CRLF line endings (Git on Windows) is read as it is.
  const source = new RegExp(`(\\r?\\n *${tool}: \\{\\r?\\n *version: [A-Z_]+,\\r?\\n *source: \`[^\`\\r\\n]*?) \\(null until recorded\\)\``, "g");
  return out.replace(source, (_, head) => `${head}\``);
}

/**
 * Reads what a tool's release says about its assets: sha256 (fd: the API's
 * digests; ripgrep: each pinned archive's .sha256 file, checked against the
 * API's digest where there is one) and sizes.
 * @param {"fd" | "ripgrep"} tool
 * @param {string} version
 * @param {string[]} names the pinned archives' asset names
 * @param {{ releases: string, api: string }} [bases]
 * @returns {Promise<{ checksums: Map<string, string>, sizes: Map<string, number> }>}
 */
export async function fetchToolSources(tool, version, names, bases = TOOL_SOURCES[tool]) {
  const tag = TOOL_SOURCES[tool].tag(version);
  const text = await getText(`${bases.api}/releases/tags/${tag}`, {
    headers: { accept: "application/vnd.github+json", "x-github-api-version": "2022-11-28", "user-agent": "gentle-shell-setup verify-pins" },
  });
  let release;
  try {
    release = JSON.parse(text);
  } catch {
    throw new Error(`${bases.api}/releases/tags/${tag} is not JSON`);
  }
  const sizes = parseAssetSizes(release);
  const digests = parseAssetDigests(release);
  if (tool === "fd") return { checksums: digests, sizes };
  const checksums = new Map();
  for (const name of names) {
    if (!sizes.has(`${name}.sha256`)) continue;
    const sha256 = parseSha256File(await getText(`${bases.releases}/${tag}/${name}.sha256`), name);
    const digest = digests.get(name);
    if (digest !== undefined && digest !== sha256) throw new Error(`${name}: its .sha256 file says ${sha256}, the release's asset list ${digest}`);
    checksums.set(name, sha256);
  }
  return { checksums, sizes };
}
