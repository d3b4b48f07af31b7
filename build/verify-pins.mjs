/**
 * node build/verify-pins.mjs [--release | --record-engram | --record-tools]
 *
 * Re-reads the public documents the production pins name and compares them
 * with src/pins/production.ts: nodejs.org's SHASUMS256.txt, the registry's
 * pnpm integrity (the registry npm's configuration names), go.dev's download
 * list, the Engram release's checksums.txt and asset list (GitHub's
 * release download and REST API), and the fd and ripgrep releases (asset
 * digests and sizes; ripgrep's .sha256 files; build/pins-tools.mjs). Exits 1
 * on any disagreement.
 *
 * - no argument: a pin that is null is reported as a note, never filled in.
 * - --release (the release workflow): also exits 1 when any pin is null,
 *   one line per null pin.
 * - --record-engram: checks nothing else; writes the six Engram archives'
 *   sha256 (checksums.txt) and size (asset list) into production.ts, or, when
 *   the release does not list one of them, writes nothing and exits 1.
 * - --record-tools: the same for the fd and ripgrep archives (Pi's own
 *   tools): all twelve are written, or none.
 */
import { spawnSync } from "node:child_process";
import { promises as fs } from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { compareEngram, engramEntries, engramRecords, fetchEngramSources, getText, nullPins, parseMode, rewriteEngramPins } from "./pins-engram.mjs";
import { compareTools, fetchToolSources, rewriteToolPins, toolEntries, toolRecords } from "./pins-tools.mjs";
import { productionPins } from "./toolchain.mjs";

const PRODUCTION_TS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "src", "pins", "production.ts");

const problems = [];
const notes = [];
function check(what, expected, actual) {
  if (expected === actual) console.log(`ok    ${what}`);
  else problems.push(`${what}: pinned ${expected}, source says ${actual}`);
}

async function verify(pins, mode) {
  // Node: SHASUMS256.txt of the release.
  const shasums = await getText(pins.node.source);
  const published = new Map(
    shasums
      .trim()
      .split("\n")
      .map((line) => line.trim().split(/\s+/))
      .map(([sha, name]) => [name, sha]),
  );
  for (const [target, pin] of Object.entries(pins.node.archives)) {
    const name = path.posix.basename(pin.path);
    if (!pin.sha256) notes.push(`node ${target}: sha256 is null`);
    else check(`node ${name}`, pin.sha256, published.get(name));
  }

  // pnpm: the registry's integrity, through npm's configured registry.
  const view = spawnSync("npm", ["view", `pnpm@${pins.pnpm.version}`, "dist.integrity"], {
    encoding: "utf8",
    shell: process.platform === "win32",
  });
  if (view.status !== 0) problems.push(`npm view pnpm@${pins.pnpm.version} failed: ${view.stderr.trim()}`);
  else check(`pnpm ${pins.pnpm.version} integrity`, pins.pnpm.integrity, view.stdout.trim());

  // Go: the download list.
  const releases = JSON.parse(await getText(pins.go.source));
  const goFiles = new Map();
  for (const release of releases) {
    if (release.version !== `go${pins.go.version}`) continue;
    for (const file of release.files) goFiles.set(file.filename, file);
  }
  for (const pin of Object.values(pins.go.archives)) {
    const name = path.posix.basename(pin.path);
    const file = goFiles.get(name);
    check(`go ${name} sha256`, pin.sha256, file?.sha256);
    check(`go ${name} size`, pin.size, file?.size);
  }

  // Engram: the release's checksums.txt and its asset list.
  const { checksums, sizes } = await fetchEngramSources(pins.engram.version);
  const engram = compareEngram(engramEntries(pins, checksums, sizes));
  for (const [what, pinned, source] of engram.checks) check(what, pinned, source);
  notes.push(...engram.notes);
  if (pins.engram.schema === null) notes.push("engram schema is null");

  // fd and ripgrep: their releases' asset digests and sizes (ripgrep: its .sha256 files).
  for (const tool of ["fd", "ripgrep"]) {
    const entries = await toolSourceEntries(pins, tool);
    const compared = compareTools(entries);
    for (const [what, pinned, source] of compared.checks) check(what, pinned, source);
    notes.push(...compared.notes);
  }

  // A release ships no null pin.
  if (mode === "release") for (const pin of nullPins(pins)) problems.push(`null pin: ${pin}`);
}

async function recordEngram(pins) {
  const { version } = pins.engram;
  const { checksums, sizes } = await fetchEngramSources(version);
  const result = engramRecords(engramEntries(pins, checksums, sizes));
  if ("missing" in result) {
    throw new Error(`not recording: the Engram v${version} release does not list ${result.missing.join(", ")}, so src/pins/production.ts is unchanged`);
  }
  const text = await fs.readFile(PRODUCTION_TS, "utf8");
  const next = rewriteEngramPins(text, version, result.records);
  const temp = `${PRODUCTION_TS}.tmp-${process.pid}`;
  await fs.writeFile(temp, next);
  await fs.rename(temp, PRODUCTION_TS);
  for (const [target, { sha256, size }] of Object.entries(result.records)) console.log(`recorded engram ${target}: sha256 ${sha256}, size ${size}`);
}

async function toolSourceEntries(pins, tool) {
  const names = Object.values(pins.tools[tool].archives).map((pin) => path.posix.basename(pin.path));
  const { checksums, sizes } = await fetchToolSources(tool, pins.tools[tool].version, names);
  return toolEntries(pins, tool, checksums, sizes);
}

async function recordTools(pins) {
  const all = {};
  for (const tool of ["fd", "ripgrep"]) {
    const result = toolRecords(await toolSourceEntries(pins, tool));
    if ("missing" in result) {
      throw new Error(
        `not recording: the ${tool} ${pins.tools[tool].version} release does not give ${result.missing.join(", ")}, so src/pins/production.ts is unchanged`,
      );
    }
    all[tool] = result.records;
  }
  let text = await fs.readFile(PRODUCTION_TS, "utf8");
  for (const [tool, records] of Object.entries(all)) text = rewriteToolPins(text, tool, records);
  const temp = `${PRODUCTION_TS}.tmp-${process.pid}`;
  await fs.writeFile(temp, text);
  await fs.rename(temp, PRODUCTION_TS);
  for (const [tool, records] of Object.entries(all)) {
    for (const [target, { sha256, size }] of Object.entries(records)) console.log(`recorded ${tool} ${target}: sha256 ${sha256}, size ${size}`);
  }
}

async function main() {
  const mode = parseMode(process.argv.slice(2));
  const pins = await productionPins();
  if (mode === "record-engram") return recordEngram(pins);
  if (mode === "record-tools") return recordTools(pins);
  await verify(pins, mode);
  for (const note of notes) console.log(`note  ${note}`);
  for (const problem of problems) console.error(`FAIL  ${problem}`);
  process.exitCode = problems.length ? 1 : 0;
}

main().catch((error) => {
  console.error(`verify-pins: ${error.message}`);
  process.exitCode = 1;
});
