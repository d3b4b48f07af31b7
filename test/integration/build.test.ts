/**
 * The release artifact as a user gets it: `npm run build` makes the host's
 * single executable, which must run with no Node anywhere on PATH, ignore
 * NODE_OPTIONS, be listed in SHA256SUMS with its real hash, and carry the
 * pins it was built with (production, or fixture pins from `--pins`).
 */
import { spawnSync, type SpawnSyncReturns } from "node:child_process";
import { registryLine, writeNpmrc } from "../support/npmrc";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { productionPins } from "../../src/pins/production";
import { fixtures } from "../support/context";
import { REPO_ROOT } from "../support/paths";
import { toolchain } from "../support/toolchain";

const VERSION: string = JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8")).version;
const BUILD = join(REPO_ROOT, "build", "build.mjs");

let work: string;
let home: string;
let productionBin: string;
let productionOut: string;
let againOut: string;
let fixtureBin: string;
let fixtureOut: string;
let binaryName: string;
let nodeBinary: string;

function runBuild(args: string[]): SpawnSyncReturns<string> {
  return spawnSync(process.execPath, [BUILD, ...args], { cwd: REPO_ROOT, encoding: "utf8", timeout: 300_000 });
}

function expectBuilt(result: SpawnSyncReturns<string>): void {
  if (result.status !== 0) {
    throw new Error(`build failed (exit ${result.status}):\n${result.stderr}\n${result.stdout}`);
  }
}

/** Like `env -i PATH=/nonexistent-dir HOME=<tmp> <bin> ...`, plus `extra`. */
function runBare(bin: string, args: string[], extra: Record<string, string> = {}): SpawnSyncReturns<string> {
  return spawnSync(bin, args, {
    cwd: home,
    env: { PATH: "/nonexistent-dir", HOME: home, ...extra },
    encoding: "utf8",
    timeout: 30_000,
    stdio: ["ignore", "pipe", "pipe"],
  });
}

function sha256(file: string): string {
  return createHash("sha256").update(readFileSync(file)).digest("hex");
}

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), "gss-build-test-"));
  home = join(work, "home");
  mkdirSync(home);
});

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

describe("npm run build (host single executable)", () => {
  beforeAll(async () => {
    const target = (await toolchain()).hostTarget();
    nodeBinary = await (await toolchain()).ensureNodeBinary();
    binaryName = `gentle-shell-setup-${target}${target.startsWith("win-") ? ".exe" : ""}`;

    productionOut = join(work, "production");
    expectBuilt(runBuild(["--out", productionOut]));
    productionBin = join(productionOut, binaryName);
    // Reproducible: a second build of the same commit, into another folder.
    againOut = join(work, "production-again");
    expectBuilt(runBuild(["--out", againOut]));

    const pinsFile = join(work, "fixture-pins.json");
    writeFileSync(pinsFile, JSON.stringify({ ...productionPins, kind: "fixture" }));
    fixtureOut = join(work, "fixture");
    expectBuilt(runBuild(["--out", fixtureOut, "--pins", pinsFile]));
    fixtureBin = join(fixtureOut, binaryName);
  });

  it("--version runs without any node on PATH and names the production pins", () => {
    const result = runBare(productionBin, ["--version"]);
    expect(result.stderr).toBe("");
    expect(result.status).toBe(0);
    expect(result.stdout.trim()).toBe(`gentle-shell-setup ${VERSION} (pins: production)`);
  });

  it("--help runs without any node on PATH and shows the usage", () => {
    const result = runBare(productionBin, ["--help"]);
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/gentle-shell-setup/);
    expect(result.stdout).toMatch(/usage/i);
    expect(result.stderr).not.toMatch(/ExperimentalWarning|single executable/i);
  });

  it("ignores NODE_OPTIONS (execArgvExtension none)", () => {
    const result = runBare(productionBin, ["--version"], { NODE_OPTIONS: "--require /nonexistent" });
    expect(result.stderr).toBe("");
    expect(result.status).toBe(0);
    expect(result.stdout.trim()).toBe(`gentle-shell-setup ${VERSION} (pins: production)`);
  });

  it("is reproducible: two builds of the same commit give the same single-executable bytes", () => {
    expect(readFileSync(join(againOut, binaryName)).equals(readFileSync(productionBin))).toBe(true);
    expect(readFileSync(join(againOut, "SHA256SUMS"), "utf8")).toBe(readFileSync(join(productionOut, "SHA256SUMS"), "utf8"));
  });

  it("SHA256SUMS lists the binary with its real sha256", () => {
    const sums = readFileSync(join(productionOut, "SHA256SUMS"), "utf8");
    expect(sums).toBe(`${sha256(productionBin)}  ${binaryName}\n`);
  });

  // Issue 47: the kill tests' holds (src/io/kill-hold-test.ts) are in a test build alone.
  it("a release build carries no kill-test hold; a build with fixture pins does", () => {
    const hold = "GSS_HOLD_AT";
    expect(readFileSync(join(productionOut, "gentle-shell-setup.cjs"), "utf8")).not.toContain(hold);
    expect(readFileSync(productionBin).includes(hold)).toBe(false);
    expect(readFileSync(join(fixtureOut, "gentle-shell-setup.cjs"), "utf8")).toContain(hold);
  });

  it("embeds the bundle once, as the engine.cjs asset, behind a tiny main script", () => {
    const script = readFileSync(join(productionOut, "gentle-shell-setup.cjs"));
    const binary = readFileSync(productionBin);
    const first = binary.indexOf(script);
    expect(first).toBeGreaterThan(0);
    expect(binary.indexOf(script, first + script.length)).toBe(-1);
    // The rest of the binary is the pinned Node plus a main script far smaller than the bundle. postject
    // pads the injected blob to whole 64 KiB pages (a 23 KB larger bundle made the binary 64 KiB larger),
    // so the bound allows one page of padding beyond the 64 KiB the main script and the blob's headers may take.
    const node = readFileSync(nodeBinary);
    expect(binary.length - node.length - script.length).toBeLessThan(2 * 64 * 1024);
  });

  it("answers --version and the top help as the script does, on a pipe, under CI=1 and on a terminal, without parsing the bundle", () => {
    for (const args of [["--version"], ["-V"], ["--help"], ["help"], []]) {
      for (const extra of [{}, { CI: "1" }, { NO_COLOR: "1" }] as Record<string, string>[]) {
        const sea = runBare(productionBin, args, extra);
        const script = runBare(nodeBinary, [join(productionOut, "gentle-shell-setup.cjs"), ...args], extra);
        expect(sea.stderr).toBe("");
        expect(sea.status).toBe(0);
        expect(sea.stdout, `${args.join(" ")} ${JSON.stringify(extra)}`).toBe(script.stdout);
      }
    }
    // On a terminal (script(1) gives one), citty's colours are kept, as by the script.
    const onTerminal = (command: string) =>
      spawnSync("script", ["-qec", command, "/dev/null"], { cwd: home, env: { PATH: "/usr/bin:/bin", HOME: home, TERM: "xterm" }, encoding: "utf8" }).stdout;
    const seaTty = onTerminal(`'${productionBin}' --help`);
    expect(seaTty).toMatch(/\u001b\[/);
    expect(seaTty).toBe(onTerminal(`'${nodeBinary}' '${join(productionOut, "gentle-shell-setup.cjs")}' --help`));
  });

  it("runs the full installer from its asset for everything else", () => {
    const help = runBare(productionBin, ["install", "--help"]);
    expect(help.status).toBe(0);
    expect(help.stdout).toBe(runBare(nodeBinary, [join(productionOut, "gentle-shell-setup.cjs"), "install", "--help"]).stdout);
    const unknown = runBare(productionBin, ["bogus"]);
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toBe('gentle-shell-setup: unknown command "bogus"; see gentle-shell-setup --help\n');
  });

  it("a --pins build compiles the fixture pins in", () => {
    const result = runBare(fixtureBin, ["--version"]);
    expect(result.status).toBe(0);
    expect(result.stdout.trim()).toBe(`gentle-shell-setup ${VERSION} (pins: fixture)`);
  });

  it("only a --pins build widens the startup offer's 1.5 s registry budget", () => {
    // A production bundle leaves the test-build constant undefined, so the engine keeps OFFER_TIMEOUT_MS (1.5 s).
    expect(readFileSync(join(productionOut, "gentle-shell-setup.cjs"), "utf8")).toContain("__GSS_OFFER_BUDGET_MS__");
    expect(readFileSync(join(work, "fixture", "gentle-shell-setup.cjs"), "utf8")).not.toContain("__GSS_OFFER_BUDGET_MS__");
  });

  it("a production build has no release key yet, so it trusts no release: the install stops before anything is installed", async () => {
    const f = fixtures();
    const user = join(work, "production-user");
    mkdirSync(user);
    await writeNpmrc(user, [registryLine(f.registryUrl)]);
    const result = spawnSync(productionBin, ["install", "--yes", "--no-modify-path", "--source", f.mirrorUrl, "--release", f.releases[0]!.shell], {
      cwd: user,
      env: { PATH: "/usr/bin:/bin", HOME: user },
      encoding: "utf8",
      timeout: 120_000,
    });
    expect(result.status).toBe(1);
    expect(result.stdout).toContain(
      `✖ runtime failed: this gentle-shell-setup build has no release signing key compiled in (pins.release.keys is null), so it cannot verify the mirror ${f.mirrorUrl}; use a published gentle-shell-setup`,
    );
    for (const part of ["runtime", "versions", "current", "bin"]) expect(existsSync(join(user, ".gentle-shell", part)), part).toBe(false);
    // Nor will it sign one: a key it does not compile in is refused before anything is written.
    const signed = runBare(productionBin, ["release", "sign", "--assets", user, "--key", join(user, ".npmrc")]);
    expect(signed.status).toBe(1);
    expect(signed.stderr).toContain("pins.release.keys is null");
  });

  it("refuses a --pins file that does not say it is a fixture", () => {
    const pinsFile = join(work, "production-kind.json");
    writeFileSync(pinsFile, JSON.stringify(productionPins));
    const result = runBuild(["--out", join(work, "refused"), "--pins", pinsFile]);
    expect(result.status).not.toBe(0);
    expect(result.stderr).toMatch(/"kind": "fixture"/);
  });
});

describe("build/toolchain.mjs cache", () => {
  /** Run ensurePackageTarball in a child with its own CACHE_DIR. */
  function ensureNpmTarball(cacheDir: string): SpawnSyncReturns<string> {
    const script =
      `import(${JSON.stringify(join(REPO_ROOT, "build", "toolchain.mjs"))})` +
      `.then((t) => t.ensurePackageTarball("npm", "11.19.0")).then((p) => console.log(p))` +
      `.catch((e) => { console.error(e.message); process.exitCode = 1; });`;
    return spawnSync(process.execPath, ["-e", script], {
      cwd: REPO_ROOT,
      env: { ...process.env, GSS_CACHE_DIR: cacheDir },
      encoding: "utf8",
      timeout: 120_000,
    });
  }

  const npmIntegrity = "sha512-SDd/hHg3KqHE5Ht2NHWxNYNtqCQ2pXAPLl6OtQhPyED5PHsRfrOtO199MZTIG2cQoQ1ZRI9t28shrD+2cr3AAw==";

  function integrityOf(file: string): string {
    return `sha512-${createHash("sha512").update(readFileSync(file)).digest("base64")}`;
  }

  it("never reuses a cached tarball whose marker or size does not match the pin", async () => {
    const real = await (await toolchain()).ensurePackageTarball("npm", "11.19.0");
    expect(integrityOf(real)).toBe(npmIntegrity);

    const cacheDir = join(work, "cache");
    const dir = join(cacheDir, "packages", "npm@11.19.0");
    mkdirSync(dir, { recursive: true });
    const file = join(dir, "npm-11.19.0.tgz");

    // A marker naming another pin.
    writeFileSync(file, Buffer.concat([readFileSync(real), Buffer.from("tampered")]));
    const size = readFileSync(file).length;
    writeFileSync(join(dir, ".gss-verified.json"), JSON.stringify({ artifact: "x", verified: "sha512-other", file: "npm-11.19.0.tgz", size }));
    let result = ensureNpmTarball(cacheDir);
    expect(result.stderr).toBe("");
    expect(result.stdout.trim()).toBe(file);
    expect(integrityOf(file)).toBe(npmIntegrity);

    // The right marker, but the file beside it changed size.
    writeFileSync(file, Buffer.concat([readFileSync(file), Buffer.from("tampered")]));
    result = ensureNpmTarball(cacheDir);
    expect(result.status).toBe(0);
    expect(integrityOf(result.stdout.trim())).toBe(npmIntegrity);
  });

  it("refuses an artifact it has no pin for", () => {
    const script =
      `import(${JSON.stringify(join(REPO_ROOT, "build", "toolchain.mjs"))})` +
      `.then((t) => t.ensurePackageTarball("pnpm", "9.0.0")).catch((e) => { console.error(e.message); process.exitCode = 1; });`;
    const result = spawnSync(process.execPath, ["-e", script], { cwd: REPO_ROOT, encoding: "utf8" });
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/no pinned integrity for pnpm@9\.0\.0/);
  });
});
