/**
 * build/pins-tools.mjs: what build/verify-pins.mjs reads from the fd and
 * ripgrep releases (the API's asset digests and sizes, ripgrep's .sha256
 * files), how it compares and records those pins. The sources are served by
 * a loopback server of this file; the hashes are made up here (sha256 of a
 * word), never a real release's.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import * as esbuild from "esbuild";
import {
  compareTools,
  fetchToolSources,
  parseAssetDigests,
  parseSha256File,
  rewriteToolPins,
  TOOL_SOURCES,
  toolEntries,
  toolRecords,
} from "../../build/pins-tools.mjs";
import { FD_RELEASES, RIPGREP_RELEASES } from "../../src/core/source";
import { productionPins } from "../../src/pins/production";
import { TARGETS, type Pins } from "../../src/pins/types";
import { REPO_ROOT } from "../support/paths";
import { routeServer } from "../support/route-server";

const fakeSha = (word: string) => createHash("sha256").update(word).digest("hex");
const names = (tool: "fd" | "ripgrep") => TARGETS.map((t) => productionPins.tools[tool].archives[t]!.path.split("/").pop()!);
const FD_NAMES = names("fd");
const RG_NAMES = names("ripgrep");
const release = (assetNames: string[], digests = true) => ({
  assets: assetNames.map((name, i) => ({ name, size: 1_000_000 + i, ...(digests ? { digest: `sha256:${fakeSha(name)}` } : {}) })),
});

describe("parseSha256File", () => {
  it("reads shasum's line and certutil's output (spaced or not) for that asset", () => {
    const name = RG_NAMES[0]!;
    expect(parseSha256File(`${fakeSha("a")}  ${name}\n`, name)).toBe(fakeSha("a"));
    const spaced = fakeSha("b").replace(/(..)/g, "$1 ").trim();
    const certutil = (hex: string) => `SHA256 hash of ${RG_NAMES[4]}:\r\n${hex}\r\nCertUtil: -hashfile command completed successfully.\r\n`;
    expect(parseSha256File(certutil(fakeSha("b")), RG_NAMES[4]!)).toBe(fakeSha("b"));
    expect(parseSha256File(certutil(spaced), RG_NAMES[4]!)).toBe(fakeSha("b"));
  });

  it("refuses another file's line, a missing hash and anything else", () => {
    expect(() => parseSha256File(`${fakeSha("a")}  other.tar.gz\n`, RG_NAMES[0]!)).toThrow(/names other\.tar\.gz/);
    expect(() => parseSha256File("not a hash\n", RG_NAMES[0]!)).toThrow(/neither shasum's nor certutil's output/);
    expect(() => parseSha256File(`SHA256 hash of ${RG_NAMES[4]}:\nzz\nCertUtil: done\n`, RG_NAMES[4]!)).toThrow(/holds no sha256/);
  });
});

describe("toolEntries, compareTools and toolRecords", () => {
  it("null pins (production today): a note per value saying what the source has; records only when all six are listed", () => {
    const rel = release(FD_NAMES);
    const entries = toolEntries(productionPins, "fd", parseAssetDigests(rel), new Map(rel.assets.map((a) => [a.name, a.size])));
    const { checks, notes } = compareTools(entries);
    expect(checks).toEqual([]);
    expect(notes[0]).toBe(`fd linux-x64: sha256 is null (Pi fetches its own fd there); the source says ${fakeSha(FD_NAMES[0]!)}`);
    expect(toolRecords(entries)).toEqual({
      records: Object.fromEntries(TARGETS.map((t, i) => [t, { sha256: fakeSha(FD_NAMES[i]!), size: 1_000_000 + i }])),
    });
    const partial = release(FD_NAMES.slice(1), false);
    expect(toolRecords(toolEntries(productionPins, "fd", parseAssetDigests(partial), new Map(partial.assets.map((a) => [a.name, a.size]))))).toEqual({
      missing: [
        ...FD_NAMES.map((n) => `${n}'s sha256`).slice(0, 1),
        `${FD_NAMES[0]} in the release's asset list`,
        ...FD_NAMES.slice(1).map((n) => `${n}'s sha256`),
      ],
    });
  });
});

// Both line endings, whatever this checkout has: Git on Windows may write CRLF.
const productionLf = readFileSync(join(REPO_ROOT, "src", "pins", "production.ts"), "utf8").replace(/\r\n/g, "\n");

describe.each([
  ["LF", productionLf],
  ["CRLF", productionLf.replace(/\n/g, "\r\n")],
])("rewriteToolPins (%s)", (_eol, text) => {
  const records = (tool: "fd" | "ripgrep") => Object.fromEntries(TARGETS.map((t, i) => [t, { sha256: fakeSha(`${tool}${t}`), size: 100 + i }]));

  it("writes both tools' values inline and their recorded source text; the file compiles to those pins", async () => {
    const next = rewriteToolPins(rewriteToolPins(text, "fd", records("fd")), "ripgrep", records("ripgrep"));
    expect(next.split("\n").filter((l, i) => l !== text.split("\n")[i])).toHaveLength(14);
    const built = await esbuild.build({
      stdin: { contents: next, loader: "ts", resolveDir: join(REPO_ROOT, "src", "pins"), sourcefile: "production.ts" },
      bundle: true,
      write: false,
      format: "cjs",
      platform: "node",
      logLevel: "silent",
    });
    const mod = { exports: {} as { productionPins: Pins } };
    new Function("module", "exports", "require", built.outputFiles[0]!.text)(mod, mod.exports, require);
    const pins = mod.exports.productionPins;
    expect(pins.tools.ripgrep.archives["win-arm64"]).toEqual({
      ...productionPins.tools.ripgrep.archives["win-arm64"],
      sha256: fakeSha("ripgrepwin-arm64"),
      size: 105,
    });
    expect(pins.tools.fd.source).toBe("fd v10.3.0 GitHub release: sha256 and size from its asset list");
    expect({ ...pins, tools: null }).toEqual({ ...productionPins, tools: null });
  });

  it("refuses (changing nothing) a bad value or a missing line", () => {
    expect(() => rewriteToolPins(text, "fd", { ...records("fd"), "win-x64": { sha256: "abc", size: 1 } })).toThrow('fd win-x64: "abc" is not a sha256');
    const without = text.replace(/^.*"linux-arm64": ripgrepArchive.*\r?\n/m, "");
    expect(without).not.toBe(text);
    expect(() => rewriteToolPins(without, "ripgrep", records("ripgrep"))).toThrow("src/pins/production.ts has 0 ripgrepArchive lines for linux-arm64, not one");
  });
});

describe("fetchToolSources", () => {
  let base: string;
  const routes: Record<string, string> = {
    "/fd/api/releases/tags/v10.3.0": JSON.stringify(release(FD_NAMES)),
    "/rg/api/releases/tags/15.1.0": JSON.stringify(release([...RG_NAMES, ...RG_NAMES.map((n) => `${n}.sha256`)], false)),
    ...Object.fromEntries(RG_NAMES.map((n) => [`/rg/download/15.1.0/${n}.sha256`, `${fakeSha(`rg ${n}`)}  ${n}\n`])),
    "/bad/api/releases/tags/15.1.0": JSON.stringify({ assets: [...release([RG_NAMES[0]!]).assets, { name: `${RG_NAMES[0]}.sha256`, size: 90 }] }),
    [`/bad/download/15.1.0/${RG_NAMES[0]}.sha256`]: `${fakeSha("different")}  ${RG_NAMES[0]}\n`,
  };
  const site = routeServer(routes);
  beforeAll(() => {
    base = site.base();
  });

  it("defaults to the tools' own releases (the installer's FD_RELEASES and RIPGREP_RELEASES) and REST APIs", () => {
    expect(TOOL_SOURCES.fd.releases).toBe(FD_RELEASES);
    expect(TOOL_SOURCES.ripgrep.releases).toBe(RIPGREP_RELEASES);
    expect(TOOL_SOURCES.fd.api).toBe("https://api.github.com/repos/sharkdp/fd");
    expect(TOOL_SOURCES.ripgrep.api).toBe("https://api.github.com/repos/BurntSushi/ripgrep");
  });

  it("fd: the API's digests and sizes; ripgrep: each archive's .sha256 file and the sizes", async () => {
    const fd = await fetchToolSources("fd", "10.3.0", FD_NAMES, { releases: `${base}/fd/download`, api: `${base}/fd/api` });
    expect(fd.checksums.get(FD_NAMES[2]!)).toBe(fakeSha(FD_NAMES[2]!));
    expect(fd.sizes.get(FD_NAMES[2]!)).toBe(1_000_002);
    const rg = await fetchToolSources("ripgrep", "15.1.0", RG_NAMES, { releases: `${base}/rg/download`, api: `${base}/rg/api` });
    expect(rg.checksums.get(RG_NAMES[5]!)).toBe(fakeSha(`rg ${RG_NAMES[5]}`));
    expect(rg.checksums.size).toBe(6);
  });

  it("refuses a .sha256 file that disagrees with the release's digest, and names a missing release's URL", async () => {
    await expect(fetchToolSources("ripgrep", "15.1.0", RG_NAMES, { releases: `${base}/bad/download`, api: `${base}/bad/api` })).rejects.toThrow(
      /its \.sha256 file says .*, the release's asset list /,
    );
    await expect(fetchToolSources("fd", "9.9.9", FD_NAMES, { releases: `${base}/fd/download`, api: `${base}/fd/api` })).rejects.toThrow(
      `${base}/fd/api/releases/tags/v9.9.9: HTTP 404`,
    );
  });
});
