/**
 * build/pins-engram.mjs: what build/verify-pins.mjs reads from the Engram
 * release (checksums.txt, the asset list), how it compares and records the
 * Engram pins, and which null pins --release refuses. The sources are served
 * by a loopback server of this file; the hashes are made up here (sha256 of a
 * word), never a real Engram release's.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHash } from "node:crypto";
import { mkdtempSync, promises as fs, readFileSync } from "node:fs";
import type { IncomingHttpHeaders } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import * as esbuild from "esbuild";
import {
  compareEngram,
  ENGRAM_API,
  ENGRAM_RELEASES,
  engramEntries,
  engramRecords,
  engramSourceText,
  fetchEngramSources,
  nullPins,
  parseAssetSizes,
  parseChecksums,
  parseMode,
  rewriteEngramPins,
} from "../../build/pins-engram.mjs";
import { ENGRAM_RELEASES as SOURCE_ENGRAM_RELEASES } from "../../src/core/source";
import { productionPins } from "../../src/pins/production";
import { TARGETS, type Pins } from "../../src/pins/types";
import { REPO_ROOT } from "../support/paths";
import { routeServer } from "../support/route-server";

const PRODUCTION_TS = join(REPO_ROOT, "src", "pins", "production.ts");
const MiB = 1024 * 1024;
const fakeSha = (word: string) => createHash("sha256").update(word).digest("hex");
const NAMES: Record<string, string> = {
  "linux-x64": "engram_3.5.2_linux_amd64.tar.gz",
  "linux-arm64": "engram_3.5.2_linux_arm64.tar.gz",
  "darwin-x64": "engram_3.5.2_darwin_amd64.tar.gz",
  "darwin-arm64": "engram_3.5.2_darwin_arm64.tar.gz",
  "win-x64": "engram_3.5.2_windows_amd64.zip",
  "win-arm64": "engram_3.5.2_windows_arm64.zip",
};
/** A checksums.txt and an API release object listing the six archives (and one unrelated asset). */
const SIZE: Record<string, number> = {
  "linux-x64": 11_000_001,
  "linux-arm64": 10_000_002,
  "darwin-x64": 11_500_003,
  "darwin-arm64": 10_500_004,
  "win-x64": 11_200_005,
  "win-arm64": 10_200_006,
};
const CHECKSUMS = `${[...Object.entries(NAMES).map(([t, n]) => `${fakeSha(t)}  ${n}`), `${fakeSha("extra")}  engram_3.5.2_freebsd_amd64.tar.gz`].join("\n")}\n`;
const RELEASE = {
  tag_name: "v3.5.2",
  assets: [...Object.entries(NAMES).map(([t, n]) => ({ name: n, size: SIZE[t], content_type: "application/gzip" })), { name: "checksums.txt", size: 600 }],
};

function clone(pins: Pins): Pins {
  return JSON.parse(JSON.stringify(pins));
}

/** production.ts's text, compiled with esbuild and imported: the pins it defines. */
async function evaluate(text: string, dir: string): Promise<Pins> {
  const built = await esbuild.build({
    stdin: { contents: text, loader: "ts", resolveDir: join(REPO_ROOT, "src", "pins"), sourcefile: "production.ts" },
    bundle: true,
    write: false,
    format: "esm",
    platform: "node",
    logLevel: "silent",
  });
  const file = join(dir, `production-${Math.random().toString(36).slice(2)}.mjs`);
  await fs.writeFile(file, built.outputFiles[0]!.text);
  return ((await import(/* @vite-ignore */ pathToFileURL(file).href)) as { productionPins: Pins }).productionPins;
}

let scratch: string;
beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), "gss-verify-pins-"));
});
afterAll(async () => {
  await fs.rm(scratch, { recursive: true, force: true });
});

describe("parseChecksums", () => {
  it("reads `<sha256>  <name>` lines (and sha256sum's binary `*`), skipping blank lines and CRLF", () => {
    const text = `${fakeSha("a")}  engram_3.5.2_linux_amd64.tar.gz\r\n\n${fakeSha("b")} *engram_3.5.2_windows_amd64.zip\n`;
    expect([...parseChecksums(text)]).toEqual([
      ["engram_3.5.2_linux_amd64.tar.gz", fakeSha("a")],
      ["engram_3.5.2_windows_amd64.zip", fakeSha("b")],
    ]);
  });

  it("refuses a line that is not a lower-case sha256 and a name, naming the line", () => {
    expect(() => parseChecksums(`${fakeSha("a")}  ok.tar.gz\nnot-a-hash  engram.tar.gz\n`)).toThrow(/line 2 is not/);
    expect(() => parseChecksums(`${fakeSha("a").toUpperCase()}  engram.tar.gz`)).toThrow(/line 1 is not/);
    expect(() => parseChecksums(`${fakeSha("a")}`)).toThrow(/line 1 is not/);
  });

  it("refuses a name listed twice with different hashes, accepts it twice with the same", () => {
    expect(() => parseChecksums(`${fakeSha("a")}  x.zip\n${fakeSha("b")}  x.zip\n`)).toThrow("checksums.txt lists x.zip twice with different hashes");
    expect(parseChecksums(`${fakeSha("a")}  x.zip\n${fakeSha("a")}  x.zip\n`).get("x.zip")).toBe(fakeSha("a"));
  });
});

describe("parseAssetSizes", () => {
  it("reads assets[].name and .size of the API's release object", () => {
    const sizes = parseAssetSizes(RELEASE);
    expect(sizes.get("engram_3.5.2_darwin_arm64.tar.gz")).toBe(10_500_004);
    expect(sizes.get("checksums.txt")).toBe(600);
    expect(sizes.size).toBe(7);
  });

  it("refuses an object without assets, an asset without a name or a whole positive size", () => {
    expect(() => parseAssetSizes({ message: "Not Found" })).toThrow("the release has no assets list");
    expect(() => parseAssetSizes(null)).toThrow("the release has no assets list");
    expect(() => parseAssetSizes({ assets: [{ size: 3 }] })).toThrow(/has no name/);
    for (const size of [0, -1, 1.5, "12", null]) {
      expect(() => parseAssetSizes({ assets: [{ name: "a.zip", size }] })).toThrow(`release asset a.zip has no valid size: ${JSON.stringify(size)}`);
    }
  });
});

describe("engramEntries and compareEngram", () => {
  const checksums = parseChecksums(CHECKSUMS);
  const sizes = parseAssetSizes(RELEASE);

  it("matches each pinned archive to its asset by the basename of its path", () => {
    const entries = engramEntries(productionPins, checksums, sizes);
    expect(entries.map((e) => [e.target, e.name, e.sha256, e.size])).toEqual(TARGETS.map((t) => [t, NAMES[t], fakeSha(t), SIZE[t]]));
  });

  it("null pins (production today): a note per value saying what the source has, nothing to check", () => {
    const { checks, notes } = compareEngram(engramEntries(productionPins, checksums, new Map()));
    expect(checks).toEqual([]);
    expect(notes).toHaveLength(12);
    expect(notes[0]).toBe(`engram linux-x64: sha256 is null (memory is disabled for this target); the source says ${fakeSha("linux-x64")}`);
    expect(notes[1]).toBe("engram linux-x64: size is null (memory is disabled for this target); the source does not list it");
  });

  it("recorded pins: one check per value, with the pinned and the published value", () => {
    const pins = clone(productionPins);
    pins.engram.archives["linux-x64"] = { ...pins.engram.archives["linux-x64"]!, sha256: fakeSha("linux-x64"), size: SIZE["linux-x64"]! };
    pins.engram.archives["win-arm64"] = { ...pins.engram.archives["win-arm64"]!, sha256: fakeSha("wrong"), size: 5 };
    const { checks, notes } = compareEngram(engramEntries(pins, checksums, sizes));
    expect(checks).toEqual([
      ["engram engram_3.5.2_linux_amd64.tar.gz sha256", fakeSha("linux-x64"), fakeSha("linux-x64")],
      ["engram engram_3.5.2_linux_amd64.tar.gz size", 11_000_001, 11_000_001],
      ["engram engram_3.5.2_windows_arm64.zip sha256", fakeSha("wrong"), fakeSha("win-arm64")],
      ["engram engram_3.5.2_windows_arm64.zip size", 5, 10_200_006],
    ]);
    expect(notes).toHaveLength(8);
  });
});

describe("engramRecords", () => {
  it("gives every archive's sha256 and size when both sources list all six", () => {
    const result = engramRecords(engramEntries(productionPins, parseChecksums(CHECKSUMS), parseAssetSizes(RELEASE)));
    expect(result).toEqual({ records: Object.fromEntries(TARGETS.map((t) => [t, { sha256: fakeSha(t), size: SIZE[t] }])) });
  });

  it("names what is missing (and records nothing) when a source lacks one", () => {
    const checksums = parseChecksums(CHECKSUMS.split("\n").slice(1).join("\n"));
    const release = { assets: RELEASE.assets.filter((a) => a.name !== NAMES["win-x64"]) };
    expect(engramRecords(engramEntries(productionPins, checksums, parseAssetSizes(release)))).toEqual({
      missing: ["engram_3.5.2_linux_amd64.tar.gz in checksums.txt", "engram_3.5.2_windows_amd64.zip in the release's asset list"],
    });
  });
});

describe("nullPins", () => {
  it("production today: the twelve Engram archive values, the twenty-four fd and ripgrep ones, the release signing key and the release's Pi, nothing else", () => {
    expect(nullPins(productionPins)).toEqual([
      ...TARGETS.flatMap((t) => [`engram ${t} sha256`, `engram ${t} size`]),
      ...["fd", "ripgrep"].flatMap((tool) => TARGETS.flatMap((t) => [`${tool} ${t} sha256`, `${tool} ${t} size`])),
      "release signing key",
      "release Pi",
    ]);
  });

  it("every kind of null pin, one entry each; Node's sizes and the pnpm file's hash are not pins", () => {
    const pins = clone(productionPins);
    for (const t of TARGETS) pins.engram.archives[t] = { ...pins.engram.archives[t]!, sha256: fakeSha(t), size: 1 };
    for (const tool of ["fd", "ripgrep"] as const) {
      for (const t of TARGETS) pins.tools[tool].archives[t] = { ...pins.tools[tool].archives[t]!, sha256: fakeSha(t), size: 1 };
    }
    pins.release.keys = [{ publicKey: "A".repeat(43), note: "test" }];
    pins.release.pi = "1.6.0";
    expect(nullPins(pins)).toEqual([]);
    pins.node.archives["win-arm64"]!.sha256 = null;
    pins.pnpm.integrity = null;
    pins.go.archives["linux-x64"]!.size = null;
    pins.engram.archives["darwin-x64"]!.sha256 = null;
    pins.engram.schema = null;
    expect(nullPins(pins)).toEqual(["node win-arm64 sha256", "pnpm 11.1.1 integrity", "go linux-x64 size", "engram darwin-x64 sha256", "engram schema"]);
  });
});

// Both line endings, whatever this checkout has: Git on Windows may write CRLF.
const productionLf = readFileSync(PRODUCTION_TS, "utf8").replace(/\r\n/g, "\n");

describe.each([
  ["LF", productionLf, "\n"],
  ["CRLF", productionLf.replace(/\n/g, "\r\n"), "\r\n"],
])("rewriteEngramPins (%s)", (_name, text, eol) => {
  const records = Object.fromEntries(TARGETS.map((t) => [t, { sha256: fakeSha(t), size: SIZE[t]! }]));

  it("writes the six values inline and the recorded source text; the file still compiles to the same pins otherwise", async () => {
    const next = rewriteEngramPins(text, "3.5.2", records);
    expect(next).toContain(`      "darwin-arm64": engramArchive("darwin-arm64", "${fakeSha("darwin-arm64")}", 10500004),${eol}`);
    expect(next).not.toContain("not yet recorded");
    const before = text.split("\n");
    const changed = next.split("\n").filter((line, i) => line !== before[i]);
    expect(changed).toHaveLength(7);
    const pins = await evaluate(next, scratch);
    for (const t of TARGETS) {
      expect(pins.engram.archives[t]).toEqual({ path: `engram/v3.5.2/${NAMES[t]}`, sha256: fakeSha(t), size: SIZE[t], maxBytes: 64 * MiB });
    }
    expect(pins.engram.source).toBe(engramSourceText("3.5.2", true));
    expect(pins.engram.source).toBe("Engram v3.5.2 GitHub release: sha256 from its checksums.txt, sizes from its asset list");
    expect({ ...pins, engram: null }).toEqual({ ...productionPins, engram: null });
    expect({ ...pins.engram, archives: null, source: null }).toEqual({ ...productionPins.engram, archives: null, source: null });
  });

  it("records again over recorded values", () => {
    const once = rewriteEngramPins(text, "3.5.2", records);
    const again = rewriteEngramPins(once, "3.5.2", { ...records, "win-x64": { sha256: fakeSha("newer"), size: 42 } });
    expect(again).toContain(`"win-x64": engramArchive("win-x64", "${fakeSha("newer")}", 42),`);
    expect(again).not.toContain(fakeSha("win-x64"));
  });

  it("refuses (changing nothing) a missing entry, a bad value or another version", () => {
    const without = text.replace(/^.*"linux-arm64": engramArchive.*\r?\n/m, "");
    expect(without).not.toBe(text);
    expect(() => rewriteEngramPins(without, "3.5.2", records)).toThrow("src/pins/production.ts has 0 engramArchive lines for linux-arm64, not one");
    expect(() => rewriteEngramPins(text, "3.5.2", { ...records, "win-x64": { sha256: "abc", size: 1 } })).toThrow('engram win-x64: "abc" is not a sha256');
    expect(() => rewriteEngramPins(text, "3.5.2", { ...records, "win-x64": { sha256: fakeSha("x"), size: 0 } })).toThrow("engram win-x64: 0 is not a size");
    expect(() => rewriteEngramPins(text, "3.6.0", records)).toThrow(`src/pins/production.ts's engram block has version "3.5.2", not "3.6.0"`);
  });
});

describe("parseMode", () => {
  it("verify, --release, --record-engram; anything else is a usage error", () => {
    expect(parseMode([])).toBe("verify");
    expect(parseMode(["--release"])).toBe("release");
    expect(parseMode(["--record-engram"])).toBe("record-engram");
    expect(parseMode(["--record-tools"])).toBe("record-tools");
    expect(() => parseMode(["--release", "--record-engram"])).toThrow(/^usage: /);
    expect(() => parseMode(["--releases"])).toThrow("(got --releases)");
  });
});

describe("fetchEngramSources", () => {
  let base: string;
  const requests: { url: string; headers: IncomingHttpHeaders }[] = [];
  const json = JSON.stringify(RELEASE);
  const routes: Record<string, string> = {
    "/download/v3.5.2/checksums.txt": CHECKSUMS,
    "/api/releases/tags/v3.5.2": json,
    "/api/releases/tags/v3.6.0": json, // its checksums.txt is the 404
    "/download/v9.9.9/checksums.txt": CHECKSUMS,
    "/api/releases/tags/v9.9.9": "<html>rate limited</html>",
  };
  const site = routeServer(routes, (req) => requests.push({ url: req.url!, headers: req.headers }));
  beforeAll(() => {
    base = site.base();
  });

  it("defaults to the Engram repository's release downloads (the installer's ENGRAM_RELEASES) and its REST API", () => {
    expect(ENGRAM_RELEASES).toBe(SOURCE_ENGRAM_RELEASES);
    expect(ENGRAM_API).toBe("https://api.github.com/repos/Gentleman-Programming/engram");
  });

  it("reads checksums.txt and the release's assets from the bases it is given", async () => {
    requests.length = 0;
    const { checksums, sizes } = await fetchEngramSources("3.5.2", { releases: `${base}/download`, api: `${base}/api` });
    expect(checksums.get(NAMES["win-x64"]!)).toBe(fakeSha("win-x64"));
    expect(checksums.size).toBe(7);
    expect(sizes.get(NAMES["linux-arm64"]!)).toBe(10_000_002);
    expect(requests.map((r) => r.url).sort()).toEqual(["/api/releases/tags/v3.5.2", "/download/v3.5.2/checksums.txt"]);
    const api = requests.find((r) => r.url.startsWith("/api/"))!;
    expect(api.headers.accept).toBe("application/vnd.github+json");
    expect(api.headers["user-agent"]).toBe("gentle-shell-setup verify-pins");
    const result = engramRecords(engramEntries(productionPins, checksums, sizes));
    expect("records" in result && result.records["darwin-x64"]).toEqual({ sha256: fakeSha("darwin-x64"), size: 11_500_003 });
  });

  it("fails, naming the URL, on a missing release or an answer that is not JSON", async () => {
    const bases = { releases: `${base}/download`, api: `${base}/api` };
    await expect(fetchEngramSources("3.6.0", bases)).rejects.toThrow(`${base}/download/v3.6.0/checksums.txt: HTTP 404`);
    await expect(fetchEngramSources("9.9.9", bases)).rejects.toThrow(`${base}/api/releases/tags/v9.9.9 is not JSON`);
    await expect(fetchEngramSources("3.5.2", { releases: "http://127.0.0.1:1", api: `${base}/api` })).rejects.toThrow(
      /^cannot read http:\/\/127\.0\.0\.1:1\/v3\.5\.2\/checksums\.txt: /,
    );
  });
});
