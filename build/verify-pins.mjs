/**
 * node build/verify-pins.mjs
 *
 * Re-reads the public documents the production pins name and compares them
 * with src/pins/production.ts. Run by the release workflow before anything is
 * built (it needs nodejs.org and go.dev; the npm registry is the one npm's
 * configuration names). Exits 1 on any disagreement; a pin that is null is
 * reported, never filled in.
 */
import { spawnSync } from "node:child_process";
import * as path from "node:path";
import { productionPins } from "./toolchain.mjs";

async function getText(url) {
  let response;
  try {
    response = await fetch(url);
  } catch (error) {
    throw new Error(`cannot read ${url}: ${error.cause?.message ?? error.message}`);
  }
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
  return response.text();
}

const problems = [];
const notes = [];
function check(what, expected, actual) {
  if (expected === actual) console.log(`ok    ${what}`);
  else problems.push(`${what}: pinned ${expected}, source says ${actual}`);
}

async function main() {
  const pins = await productionPins();

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

  // Engram: recorded by a maintainer from the release's checksums.txt.
  for (const [target, pin] of Object.entries(pins.engram.archives)) {
    if (!pin.sha256) notes.push(`engram ${target}: sha256 is null (memory is disabled for this target)`);
  }

  for (const note of notes) console.log(`note  ${note}`);
  for (const problem of problems) console.error(`FAIL  ${problem}`);
  process.exitCode = problems.length ? 1 : 0;
}

main().catch((error) => {
  console.error(`verify-pins: ${error.message}`);
  process.exitCode = 1;
});
