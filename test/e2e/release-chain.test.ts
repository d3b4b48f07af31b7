/**
 * The release chain, end to end on the fixture binary (whose own engine is
 * the first fixture release's): a release is trusted only through its signed
 * manifest, and a fresh install writes *that release's* engine. One flipped
 * byte or one substituted asset of a release on a mirror is refused before
 * anything is installed, and so is a manifest signed by a key the binary
 * does not know.
 */
import { readFileSync } from "node:fs";
import { promises as fs } from "node:fs";
import { join } from "pathe";
import { describe, expect, it } from "vitest";
import { ENGINE_ASSET, RELEASE_MANIFEST, RELEASE_SIGNATURE, signManifest } from "../../src/core/release-manifest";
import { DISTRIBUTION_JSON, DISTRIBUTION_LOCK } from "../../src/core/release-project";
import { INTERNAL_FLAG } from "../../src/core/engine-flags";
import { MODULE_FUNCTIONS } from "../../src/installed/internal";
import { fixtures } from "../support/context";
import { FIXTURE_NEXT_ENGINE, homeEnv } from "../support/fixtures";
import { runInstall } from "../support/installed";
import { mirrorClient, type Fault } from "../support/mirror";
import { runCommand } from "../support/proc";
import { strangerKey } from "../support/release-key";
import { scratchDir } from "../support/scratch";

const f = fixtures();
const older = f.releases[0]!;
const latest = f.releases[f.releases.length - 1]!;
const releaseFile = (shell: string, name: string) => join(f.mirrorRoot, "releases", `v${shell}`, name);
const packageVersion = (JSON.parse(readFileSync(join(__dirname, "..", "..", "package.json"), "utf8")) as { version: string }).version;

/** A HOME of its own (the install writes its .npmrc, naming the fixture registry). */
function freshHome(): string {
  return join(scratchDir("gss-chain-"), "home");
}

/** The one JSON line the engine in a version folder answers to an internal command, asked the way upgrade asks it. */
async function askEngine(home: string, id: string, args: string[]): Promise<Record<string, unknown>> {
  const prefix = join(home, ".gentle-shell");
  const engine = join(prefix, "versions", id, ".gentle-shell", "engine.cjs");
  const r = await runCommand(join(prefix, "runtime", `node-${f.pins.node.version}`, "bin", "node"), [engine, INTERNAL_FLAG, ...args], {
    env: homeEnv(home),
  });
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout.trim().split("\n").pop()!) as Record<string, unknown>;
}

/** serve of the engine in a version folder, `input` its request lines: every line it printed, in order. */
async function serveEngine(home: string, id: string, input: string): Promise<Record<string, unknown>[]> {
  const prefix = join(home, ".gentle-shell");
  const engine = join(prefix, "versions", id, ".gentle-shell", "engine.cjs");
  const r = await runCommand(join(prefix, "runtime", `node-${f.pins.node.version}`, "bin", "node"), [engine, INTERNAL_FLAG, "serve"], {
    env: homeEnv(home),
    input,
  });
  expect(r.code, r.stderr).toBe(0);
  return r.stdout
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** The gentle-shell-setup version the engine in a version folder reports. */
async function engineOf(home: string, id: string): Promise<string> {
  return (await askEngine(home, id, ["functions"])).engine as string;
}

describe("a release runs its own engine", () => {
  it("an older setup binary installing a newer release writes and runs that release's engine", async () => {
    const home = freshHome();
    const r = await runInstall(f, home, ["--no-modify-path", "--release", latest.shell]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain(`installed in versions/${latest.id}, signature verified; the release's own engine`);
    const written = await fs.readFile(join(home, ".gentle-shell", "versions", latest.id, ".gentle-shell", "engine.cjs"));
    expect(written.equals(await fs.readFile(releaseFile(latest.shell, ENGINE_ASSET)))).toBe(true);
    expect(await engineOf(home, latest.id)).toBe(FIXTURE_NEXT_ENGINE);
    // Asked with --launcher-script, its ensure-runtime also answers the launcher it writes, as launcher-script does:
    // the upgrade's step 5 needs no further start of that engine.
    const runtime = await askEngine(home, latest.id, ["ensure-runtime", "--launcher-script"]);
    const script = await askEngine(home, latest.id, ["launcher-script"]);
    expect(runtime.launcher).toEqual(script);
    expect((script as { script: string }).script).toContain(`prefix='${join(home, ".gentle-shell")}'`);
    // serve, the one start an upgrade makes: ready with the same launcher and its functions once its runtime is there,
    // then one line per request naming it, and an exit once its stdin ends. It writes no launcher it was not asked for.
    const launcher = join(home, ".gentle-shell", "bin", "gentle-shell");
    const launcherText = await fs.readFile(launcher, "utf8");
    await fs.writeFile(launcher, `${launcherText}# changed\n`);
    const [ready, ...answers] = await serveEngine(home, latest.id, "engram\npi-version\nbogus\n");
    expect(ready).toMatchObject({ ready: true, launcher: script, functions: [...MODULE_FUNCTIONS], engine: FIXTURE_NEXT_ENGINE });
    const answered = new Map(answers.map((answer) => [answer.reply, answer]));
    expect([...answered.keys()].sort()).toEqual(["bogus", "engram", "pi-version"]);
    expect(answered.get("engram")).toEqual({ reply: "engram", engram: "reused" });
    expect(answered.get("pi-version")).toMatchObject({ piVersion: { code: 0, reported: latest.pi } });
    expect(answered.get("bogus")).toEqual({ reply: "bogus", error: 'unknown request "bogus"' });
    expect(await fs.readFile(launcher, "utf8")).toBe(`${launcherText}# changed\n`);
    // Asked for it, it writes its own launcher again.
    const [, wrote] = await serveEngine(home, latest.id, "ensure-launcher\n");
    expect(wrote).toEqual({ reply: "ensure-launcher", launcher, status: "written" });
    expect(await fs.readFile(launcher, "utf8")).toBe(launcherText);
    // And the launcher runs it: current's engine answers --version for that release.
    const v = await runCommand(join(home, ".gentle-shell", "bin", "gentle-shell"), ["--version"], { env: homeEnv(home) });
    expect(v.stdout.split("\n").slice(0, 2)).toEqual([`gentle-shell ${latest.shell}`, `pi ${latest.pi}`]);
  });

  it("a release whose engine is the binary's own script downloads no engine", async () => {
    const scope = await mirrorClient(f.mirrorUrl).scope();
    const home = freshHome();
    const r = await runInstall(f, home, ["--no-modify-path", "--release", older.shell], { source: scope.url });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain(`installed in versions/${older.id}, signature verified\n`);
    const asked = (await scope.requests()).map((q) => q.path);
    expect(asked).toContain(`releases/v${older.shell}/${RELEASE_MANIFEST}`);
    expect(asked.filter((p) => p.endsWith(ENGINE_ASSET))).toEqual([]);
    expect(await engineOf(home, older.id)).toBe(packageVersion);
  });
});

describe("a mirror cannot substitute a release", () => {
  const path = (name: string) => `releases/v${latest.shell}/${name}`;
  const olderBody = (name: string) => readFileSync(releaseFile(older.shell, name), "utf8");
  const stranger = () => {
    const manifest = readFileSync(releaseFile(latest.shell, RELEASE_MANIFEST), "utf8");
    return signManifest(manifest, strangerKey().privateKeyPem);
  };
  const cases: [string, string, () => Fault, string][] = [
    ["one flipped byte of the manifest", RELEASE_MANIFEST, () => ({ kind: "flip", offset: 40 }), "does not verify: the release was altered"],
    [
      "one flipped byte of the signature",
      RELEASE_SIGNATURE,
      () => ({ kind: "flip", offset: 40 }),
      "is not an Ed25519 signature line; the release cannot be trusted",
    ],
    [
      "the manifest signed by a key the binary does not know",
      RELEASE_SIGNATURE,
      () => ({ kind: "status", status: 200, body: stranger() }),
      "which this gentle-shell-setup does not know",
    ],
    ["one flipped byte of the lockfile", DISTRIBUTION_LOCK, () => ({ kind: "flip", offset: 100 }), `${DISTRIBUTION_LOCK} from the mirror`],
    [
      "the older release's lockfile in its place",
      DISTRIBUTION_LOCK,
      () => ({ kind: "status", status: 200, body: olderBody(DISTRIBUTION_LOCK) }),
      "altered or substituted",
    ],
    [
      "the older release's distribution in its place",
      DISTRIBUTION_JSON,
      () => ({ kind: "status", status: 200, body: olderBody(DISTRIBUTION_JSON) }),
      "altered or substituted",
    ],
    ["one flipped byte of the engine", ENGINE_ASSET, () => ({ kind: "flip", offset: 1000 }), `${ENGINE_ASSET} from the mirror`],
    ["the older release's engine in its place", ENGINE_ASSET, () => ({ kind: "status", status: 200, body: olderBody(ENGINE_ASSET) }), "altered or substituted"],
  ];
  it.each(cases)("refuses %s before anything is installed", async (_what, name, fault, said) => {
    const scope = await mirrorClient(f.mirrorUrl).scope();
    await scope.setFault(path(name), fault());
    const home = freshHome();
    const r = await runInstall(f, home, ["--no-modify-path", "--release", latest.shell], { source: scope.url });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(said);
    expect(r.stdout + r.stderr).not.toMatch(/\n\s+at |Error:/);
    const prefix = join(home, ".gentle-shell");
    // Nothing installed: no runtime, no version, no current, no launcher.
    for (const dir of ["runtime", "versions", "bin"]) {
      expect((await fs.readdir(join(prefix, dir)).catch(() => [] as string[])).filter((n) => !n.startsWith("."))).toEqual([]);
    }
    await expect(fs.lstat(join(prefix, "current"))).rejects.toThrow();
  });
});
