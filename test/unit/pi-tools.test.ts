/**
 * Pi's own tools (src/core/pi-tool-rules.ts, src/installed/pi-tools-provision.ts,
 * src/install/runtime/pi-tool-runtime.ts): when the launcher provisions fd and rg
 * into <agent home>/bin, and that it never touches a file that is not ours.
 * The verified copies under runtime/ are laid out by hand here, so nothing is
 * downloaded; the made-up sha256 of the test pins is never checked against
 * any download (the fixture archives are, in the e2e test).
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createHash } from "node:crypto";
import { mkdtempSync, promises as fs } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "pathe";
import { prefixLayout, type Layout } from "../../src/core/layout";
import {
  PI_TOOLS,
  parseToolMarker,
  piToolDecision,
  toolFileName,
  toolMarkerName,
  toolMarkerText,
  toolMember,
  versionOutputMatches,
  type ToolFacts,
} from "../../src/core/pi-tool-rules";
import { ensurePiTools, piToolLines } from "../../src/installed/pi-tools-provision";
import { removeOwnTool, toolPresence, toolRuntimeFile } from "../../src/install/runtime/pi-tool-runtime";
import { RUNTIME_MARKER } from "../../src/install/runtime/recipe";
import { productionPins } from "../../src/pins/production";
import { has, requires } from "../support/capabilities";
import { testHost } from "../support/host";
import type { Pins } from "../../src/pins/types";

const [fd, rg] = PI_TOOLS as [(typeof PI_TOOLS)[0], (typeof PI_TOOLS)[0]];
const made = (word: string) => createHash("sha256").update(word).digest("hex");

describe("piToolDecision", () => {
  const base: ToolFacts = { homeOurs: true, pinned: true, presence: "absent", inRuntime: false, mayFetch: true };
  it("provisions only into our home, only when absent, only a pinned tool", () => {
    expect(piToolDecision(base)).toEqual({ action: "provision", fetch: true });
    expect(piToolDecision({ ...base, inRuntime: true })).toEqual({ action: "provision", fetch: false });
    expect(piToolDecision({ ...base, inRuntime: true, mayFetch: false })).toEqual({ action: "provision", fetch: false });
    expect(piToolDecision({ ...base, homeOurs: false })).toEqual({ action: "skip", why: "foreign-home" });
    expect(piToolDecision({ ...base, homeOurs: false, presence: "ours" })).toEqual({ action: "skip", why: "foreign-home" });
    expect(piToolDecision({ ...base, presence: "other" })).toEqual({ action: "keep", why: "not-ours" });
    expect(piToolDecision({ ...base, presence: "other", pinned: false })).toEqual({ action: "keep", why: "not-ours" });
    expect(piToolDecision({ ...base, presence: "ours" })).toEqual({ action: "keep", why: "ours" });
    expect(piToolDecision({ ...base, pinned: false })).toEqual({ action: "skip", why: "unpinned" });
    expect(piToolDecision({ ...base, mayFetch: false })).toEqual({ action: "skip", why: "offline" });
  });

  it("replaces our own file of another version only with a pinned one that can be had now", () => {
    const outdated: ToolFacts = { ...base, presence: "ours-outdated" };
    expect(piToolDecision(outdated)).toEqual({ action: "provision", fetch: true, replace: true });
    expect(piToolDecision({ ...outdated, inRuntime: true })).toEqual({ action: "provision", fetch: false, replace: true });
    expect(piToolDecision({ ...outdated, pinned: false })).toEqual({ action: "keep", why: "ours" });
    expect(piToolDecision({ ...outdated, mayFetch: false })).toEqual({ action: "keep", why: "ours" });
    expect(piToolDecision({ ...outdated, homeOurs: false })).toEqual({ action: "skip", why: "foreign-home" });
  });
});

describe("file names, markers, archive members and --version", () => {
  it("names the files as Pi looks for them", () => {
    expect([toolFileName(fd, "linux"), toolFileName(rg, "darwin"), toolFileName(fd, "win32"), toolFileName(rg, "win32")]).toEqual([
      "fd",
      "rg",
      "fd.exe",
      "rg.exe",
    ]);
    expect([toolMarkerName(fd), toolMarkerName(rg)]).toEqual([".gentle-shell-fd", ".gentle-shell-rg"]);
  });

  it("reads back only its own marker for that tool", () => {
    const text = toolMarkerText({ tool: "fd", version: "10.3.0", sha256: made("fd") });
    expect(parseToolMarker(text, fd)).toEqual({ tool: "fd", version: "10.3.0", sha256: made("fd") });
    expect(parseToolMarker(text, rg)).toBeNull();
    for (const bad of [null, "", "{", "[]", '{"schema":1,"tool":"fd","version":"1","sha256":"x"}', '{"tool":"fd","version":"1"}']) {
      expect(parseToolMarker(bad, fd)).toBeNull();
    }
  });

  it("takes only <stem>/<exe> or <exe> from an archive", () => {
    const path = "fd/v10.3.0/fd-v10.3.0-x86_64-unknown-linux-musl.tar.gz";
    expect(toolMember(fd, path, "linux", "fd-v10.3.0-x86_64-unknown-linux-musl/fd")).toBe(true);
    expect(toolMember(fd, path, "linux", "fd")).toBe(true);
    for (const other of ["fd-v10.3.0-x86_64-unknown-linux-musl/fd.1", "x/fd", "fd-v10.3.0-x86_64-unknown-linux-musl/autocomplete/fd", "README.md"]) {
      expect(toolMember(fd, path, "linux", other)).toBe(false);
    }
    const zip = "ripgrep/15.1.0/ripgrep-15.1.0-x86_64-pc-windows-msvc.zip";
    expect(toolMember(rg, zip, "win32", "ripgrep-15.1.0-x86_64-pc-windows-msvc/rg.exe")).toBe(true);
    expect(toolMember(rg, zip, "win32", "ripgrep-15.1.0-x86_64-pc-windows-msvc/rg")).toBe(false);
  });

  it("accepts the real tools' first --version line for the pinned version only", () => {
    expect(versionOutputMatches(fd, "10.3.0", "fd 10.3.0\n")).toBe(true);
    expect(versionOutputMatches(rg, "15.1.0", "ripgrep 15.1.0\n\nfeatures:+pcre2\n")).toBe(true);
    expect(versionOutputMatches(rg, "15.1.0", "ripgrep 15.1.0 (rev 1234abcd)\n")).toBe(true);
    expect(versionOutputMatches(fd, "10.3.0", "fd 10.2.0\n")).toBe(false);
    expect(versionOutputMatches(rg, "15.1.0", "rg 15.1.0\n")).toBe(false);
    expect(versionOutputMatches(fd, "10.3.0", "")).toBe(false);
  });
});

let home: string;
let layout: Layout;
let pins: Pins;
const script = (name: string) => `#!/bin/sh\necho "${name} from runtime"\n`;

/** Pins with a linux-x64 archive for both tools, and their verified copies under runtime/. */
async function withRuntime(tools = PI_TOOLS) {
  for (const tool of tools) {
    const file = toolRuntimeFile(layout, tool);
    await fs.mkdir(join(file, ".."), { recursive: true });
    await fs.writeFile(file, script(tool.exe), { mode: 0o755 });
    await fs.writeFile(join(file, "..", RUNTIME_MARKER), "test\n");
  }
}

const ctx = (extra: Partial<Parameters<typeof ensurePiTools>[0]> = {}) => ({
  http: testHost().http,
  layout,
  pins,
  source: { kind: "official" as const, registry: "" },
  target: "linux-x64" as const,
  env: { PATH: process.env.PATH ?? "" },
  offline: false,
  ...extra,
});
const binFile = (name: string) => join(layout.agentBin, name);

beforeEach(async () => {
  home = mkdtempSync(join(tmpdir(), "gss-pi-tools-"));
  pins = JSON.parse(JSON.stringify(productionPins));
  for (const name of ["fd", "ripgrep"] as const) {
    const pin = pins.tools[name].archives["linux-x64"]!;
    pins.tools[name].archives["linux-x64"] = { ...pin, sha256: made(name), size: 1 };
  }
  layout = prefixLayout({ home, platform: "linux", pins });
  await fs.mkdir(layout.agent, { recursive: true });
});
afterEach(async () => {
  await fs.rm(home, { recursive: true, force: true });
});

describe("ensurePiTools", () => {
  it("places our verified fd and rg in our home's bin, executable, each with our marker, and says nothing", async () => {
    await withRuntime();
    const reports = await ensurePiTools(ctx());
    expect(reports.map((r) => [r.tool.exe, r.outcome])).toEqual([
      ["fd", "placed"],
      ["rg", "placed"],
    ]);
    expect(piToolLines(reports)).toEqual([]);
    expect(await fs.readFile(binFile("fd"), "utf8")).toBe(script("fd"));
    expect(await fs.readFile(binFile("rg"), "utf8")).toBe(script("rg"));
    if (has("posix-modes")) expect((await fs.stat(binFile("rg"))).mode & 0o777).toBe(0o755);
    if (has("posix-modes")) expect((await fs.stat(layout.agentBin)).mode & 0o777).toBe(0o700);
    expect(parseToolMarker(await fs.readFile(binFile(".gentle-shell-rg"), "utf8"), rg)).toEqual({
      tool: "ripgrep",
      version: pins.tools.ripgrep.version,
      sha256: createHash("sha256").update(script("rg")).digest("hex"),
    });
    expect(await toolPresence(layout, fd)).toBe("ours");
    // The next launch keeps ours, writing nothing.
    expect((await ensurePiTools(ctx())).map((r) => r.decision)).toEqual([
      { action: "keep", why: "ours" },
      { action: "keep", why: "ours" },
    ]);
    expect((await fs.readdir(layout.agentBin)).sort()).toEqual([".gentle-shell-fd", ".gentle-shell-rg", "fd", "rg"]);
  });

  it("keeps a file that is not ours (the user's, or one Pi downloaded) byte for byte, with no marker", async () => {
    await withRuntime();
    await fs.mkdir(layout.agentBin);
    await fs.writeFile(binFile("rg"), "users own rg\n", { mode: 0o700 });
    const reports = await ensurePiTools(ctx());
    expect(reports.map((r) => r.decision)).toEqual([
      { action: "provision", fetch: false },
      { action: "keep", why: "not-ours" },
    ]);
    expect(await fs.readFile(binFile("rg"), "utf8")).toBe("users own rg\n");
    if (has("posix-modes")) expect((await fs.stat(binFile("rg"))).mode & 0o777).toBe(0o700);
    expect(await fs.readdir(layout.agentBin)).not.toContain(".gentle-shell-rg");
  });

  it("leaves a linked (foreign) home alone", async (test) => {
    requires(test, "symlinks");
    await withRuntime();
    const foreign = join(home, "users-pi-agent");
    await fs.mkdir(foreign);
    await fs.rm(layout.agent, { recursive: true });
    await fs.symlink(foreign, layout.agent);
    const reports = await ensurePiTools(ctx());
    expect(reports.map((r) => r.decision)).toEqual([
      { action: "skip", why: "foreign-home" },
      { action: "skip", why: "foreign-home" },
    ]);
    expect(await fs.readdir(foreign)).toEqual([]);
  });

  it("a null pin provisions nothing and says nothing (Pi behaves as without Shell)", async () => {
    await withRuntime();
    pins.tools.fd.archives["linux-x64"] = { ...pins.tools.fd.archives["linux-x64"]!, sha256: null };
    const reports = await ensurePiTools(ctx());
    expect(reports.map((r) => r.decision)).toEqual([
      { action: "skip", why: "unpinned" },
      { action: "provision", fetch: false },
    ]);
    expect(piToolLines(reports)).toEqual([]);
    expect(await fs.readdir(layout.agentBin)).toEqual([".gentle-shell-rg", "rg"]);
  });

  it("offline, with nothing under runtime/, asks no source and says nothing", async () => {
    const reports = await ensurePiTools(ctx({ offline: true, source: { kind: "mirror", base: "http://127.0.0.1:9" } }));
    expect(reports.map((r) => r.decision)).toEqual([
      { action: "skip", why: "offline" },
      { action: "skip", why: "offline" },
    ]);
    expect(piToolLines(reports)).toEqual([]);
  });

  it("a source that cannot give the archive: one line per tool, nothing placed, and it does not throw", async () => {
    const reports = await ensurePiTools(ctx({ source: { kind: "folder", root: join(home, "no-bundle") } }));
    expect(reports.map((r) => r.outcome)).toEqual(["failed", "failed"]);
    const lines = piToolLines(reports);
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^gentle-shell: Pi's fd was not provisioned \(fd 10\.3\.0 \(linux-x64\) is not in .*\); Pi looks for it itself\.$/);
    expect(await fs.readdir(layout.agentBin).catch(() => [])).toEqual([]);
  });
});

describe("ensurePiTools after a release moved the pin", () => {
  it("replaces our fd of the older version with the pinned one, and keeps the user's rg", async () => {
    await fs.mkdir(layout.agentBin);
    const old = "#!/bin/sh\necho older fd\n";
    await fs.writeFile(join(layout.agentBin, "fd"), old, { mode: 0o755 });
    await fs.writeFile(
      join(layout.agentBin, ".gentle-shell-fd"),
      toolMarkerText({ tool: "fd", version: "10.2.0", sha256: createHash("sha256").update(old).digest("hex") }),
    );
    await fs.writeFile(join(layout.agentBin, "rg"), "the user's rg\n");
    await withRuntime();
    expect(await toolPresence(layout, fd, pins.tools.fd.version)).toBe("ours-outdated");
    const reports = await ensurePiTools(ctx());
    expect(reports.map((r) => [r.decision, r.outcome])).toEqual([
      [{ action: "provision", fetch: false, replace: true }, "placed"],
      [{ action: "keep", why: "not-ours" }, undefined],
    ]);
    expect(await fs.readFile(join(layout.agentBin, "fd"), "utf8")).toBe(script("fd"));
    expect(await toolPresence(layout, fd, pins.tools.fd.version)).toBe("ours");
    expect(await fs.readFile(join(layout.agentBin, "rg"), "utf8")).toBe("the user's rg\n");
  });
});

describe("removeOwnTool", () => {
  it("removes ours and its marker; keeps a file that replaced ours, dropping only the marker", async () => {
    await withRuntime();
    await ensurePiTools(ctx());
    await fs.writeFile(binFile("rg"), "the user's rg now\n");
    expect(await toolPresence(layout, rg)).toBe("other");
    // A launch keeps it (without reading its bytes: beside our marker of the pinned version it is kept whoever's it is).
    expect((await ensurePiTools(ctx()))[1]!.decision).toEqual({ action: "keep", why: "ours" });
    expect(await fs.readFile(binFile("rg"), "utf8")).toBe("the user's rg now\n");
    expect(await removeOwnTool(layout, fd)).toBe(true);
    expect(await removeOwnTool(layout, rg)).toBe(false);
    expect(await fs.readdir(layout.agentBin)).toEqual(["rg"]);
    expect(await fs.readFile(binFile("rg"), "utf8")).toBe("the user's rg now\n");
  });
});

describe("the source layout of fd and ripgrep", () => {
  it("maps fd/v<v>/… and ripgrep/<v>/… to the projects' GitHub releases, where Pi itself downloads them", async () => {
    const { artifactLocation, releaseRedirectHosts } = await import("../../src/core/source");
    const official = { kind: "official" as const, registry: "" };
    const fdPin = productionPins.tools.fd.archives["linux-x64"]!;
    const rgPin = productionPins.tools.ripgrep.archives["win-arm64"]!;
    expect(fdPin.path).toBe("fd/v10.3.0/fd-v10.3.0-x86_64-unknown-linux-musl.tar.gz");
    expect(rgPin.path).toBe("ripgrep/15.1.0/ripgrep-15.1.0-aarch64-pc-windows-msvc.zip");
    expect(artifactLocation(official, fdPin.path)).toBe("https://github.com/sharkdp/fd/releases/download/v10.3.0/fd-v10.3.0-x86_64-unknown-linux-musl.tar.gz");
    expect(artifactLocation(official, rgPin.path)).toBe(
      "https://github.com/BurntSushi/ripgrep/releases/download/15.1.0/ripgrep-15.1.0-aarch64-pc-windows-msvc.zip",
    );
    expect(artifactLocation({ kind: "mirror", base: "http://m/" }, fdPin.path)).toBe(`http://m/${fdPin.path}`);
    expect(releaseRedirectHosts(artifactLocation(official, fdPin.path))).toContain("objects.githubusercontent.com");
    expect(releaseRedirectHosts(artifactLocation({ kind: "mirror", base: "http://m" }, fdPin.path))).toEqual([]);
    // Production pins stay null until verify-pins records them from the releases.
    for (const tool of ["fd", "ripgrep"] as const) {
      for (const pin of Object.values(productionPins.tools[tool].archives)) expect([pin.sha256, pin.size]).toEqual([null, null]);
    }
  });
});
