/**
 * startFixtures(): everything a test of the installer needs, started once
 * (by the vitest global setup, or by `npm run fixtures` for a person):
 *
 * - the registry (verdaccio, fixture gentle-pi 4.0.0 and 4.1.0, Pi proxied),
 * - the artifact mirror, whose root (a temp folder) holds the source layout:
 *   the fixture Node archive, the pnpm tarball, the fixture Engram archive
 *   and the distributions of the fixture releases (gentle-pi 4.0.0 and
 *   4.1.0, each with Pi 1.6.0), built by our buildDistribution with our
 *   Node 24 and pnpm against the registry,
 * - the stub model,
 * - a ready fixture Engram server on a free port (for a person pointing a
 *   binary at it; tests start their own decision-table variants),
 * - the fixture pins (JSON) and the fixture binary built with them:
 *   dist/fixture/gentle-shell-setup-linux-x64 (unless GSS_FIXTURES_SKIP_BUILD=1).
 *
 * `FixtureInfo` is plain data (it crosses from the global setup into test
 * workers through vitest's provide/inject); `makeHome` and `homeEnv` work
 * from it in any process.
 */
import { randomBytes } from "node:crypto";
import { copyFile, mkdir, mkdtemp, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import * as tar from "tar";
import { prefixLayout, versionId } from "../../src/core/layout";
import { DISTRIBUTION_JSON, DISTRIBUTION_LOCK } from "../../src/core/release-project";
import { buildDistribution } from "../../src/release/distribution-build";
import { productionPins } from "../../src/pins/production";
import type { Pins } from "../../src/pins/types";
import { packToolArchives } from "./pi-tools";
import { ENGRAM_ARCHIVE_PATH, packEngramArchive, startEngramServer, type EngramServer } from "./engram";
import { GENTLE_PI_VERSIONS } from "./gentle-pi";
import { startMirror, type Mirror } from "./mirror";
import { ensureNodeArchive, sha256File } from "./node-archive";
import { startRegistry, type Registry } from "./registry";
import { startStubModel, writeStubModelConfig, type StubModel } from "./stub-model";
import { FIXTURE_RELEASE_KEY } from "./release-key";
import { buildEngineScript, buildFixtureBinary } from "./fixture-binary";
import { publishSignedRelease } from "./release-publish";
import { toolchain } from "./toolchain";

/** The Pi every fixture release pins. */
export const FIXTURE_PI = "1.6.0";
/** The gentle-shell-setup version the newest fixture release's engine reports (the others': package.json's). */
export const FIXTURE_NEXT_ENGINE = "0.0.0-fixture.next";
export { FIXTURE_BINARY, FIXTURE_DIST } from "./fixture-binary";
export { writeStubModelConfig } from "./stub-model";

const MiB = 1024 * 1024;

export interface FixtureRelease {
  shell: string;
  pi: string;
  id: string;
}

export interface FixtureInfo {
  /** verdaccio, with a trailing slash. */
  registryUrl: string;
  /** The artifact mirror's base URL (no trailing slash); see mirrorClient() for faults and scopes. */
  mirrorUrl: string;
  mirrorRoot: string;
  /** The run's own folder (removed when the fixtures stop): shared installs keep their records here. */
  runDir: string;
  /** The stub model's origin; Pi's baseUrl is `${modelUrl}/v1` (or a scope's, see stubModelClient()). */
  modelUrl: string;
  /** A ready fixture Engram server (in-process, free port). */
  engramUrl: string;
  pinsFile: string;
  pins: Pins;
  /** The fixture binary, or null when GSS_FIXTURES_SKIP_BUILD=1. */
  binary: string | null;
  releases: FixtureRelease[];
  /** Our verified Node 24.21.0 (build/toolchain.mjs). */
  node: string;
  /** pnpm 11.1.1's bin/pnpm.mjs, extracted from the verified tarball. */
  pnpmEntry: string;
  /** Seconds the start took, and of which the binary build. */
  timings: Record<string, number>;
}

export interface Fixtures extends FixtureInfo {
  registry: Registry;
  mirror: Mirror;
  model: StubModel;
  engram: EngramServer;
  makeHome(dir: string): Promise<TestHome>;
  stop(): Promise<void>;
}

export interface StartFixturesOptions {
  /** Skip building the fixture binary (also GSS_FIXTURES_SKIP_BUILD=1). */
  skipBuild?: boolean;
  log?: (line: string) => void;
  /** The registry serves a fixed snapshot (test/support/registry.ts, `frozen`): for the bench. */
  frozenRegistry?: boolean;
}

export async function startFixtures(options: StartFixturesOptions = {}): Promise<Fixtures> {
  const log = options.log ?? (() => {});
  const skipBuild = options.skipBuild ?? process.env.GSS_FIXTURES_SKIP_BUILD === "1";
  const timings: Record<string, number> = {};
  const started = Date.now();
  const lap = async <T>(name: string, work: () => Promise<T>): Promise<T> => {
    const t = Date.now();
    const result = await work();
    timings[name] = (Date.now() - t) / 1000;
    log(`${name}: ${timings[name]!.toFixed(1)} s`);
    return result;
  };

  const tc = await toolchain();
  const runDir = await mkdtemp(join(tmpdir(), "gss-fixtures-"));
  // pnpm and Pi turn Node's compile cache on; the fixtures' own runs keep it in their folder, removed at the end.
  process.env.NODE_COMPILE_CACHE ??= join(runDir, "compile-cache");
  const cleanups: (() => Promise<void>)[] = [() => rm(runDir, { recursive: true, force: true })];
  const stopAll = async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
  };
  const track = <T extends { stop(): Promise<void> }>(p: Promise<T>): Promise<T> =>
    p.then((started) => {
      cleanups.push(() => started.stop());
      return started;
    });
  try {
    const registryStart = track(lap("registry", () => startRegistry({ frozen: options.frozenRegistry })));
    const modelStart = track(lap("model", () => startStubModel()));
    const engramStart = track(startEngramServer({ variant: "ready" }));
    const nodeStart = lap("node", () => tc.ensureNodeBinary());
    const pnpmStart = lap("pnpm", () => ensurePnpmEntry());

    // The mirror's root (the source layout) and the pins: they need no registry.
    const mirrorRoot = join(runDir, "mirror");
    const pinsFile = join(runDir, "fixture-pins.json");
    const pinsReady = (async () => {
      const [nodeArchive, pnpmTarball] = await Promise.all([
        lap("nodeArchive", () => ensureNodeArchive()),
        tc.ensurePackageTarball("pnpm", productionPins.pnpm.version),
      ]);
      const place = async (rel: string, from: string) => {
        await mkdir(dirname(join(mirrorRoot, rel)), { recursive: true });
        await copyFile(from, join(mirrorRoot, rel));
      };
      await place(nodeArchive.path, nodeArchive.file);
      await place(productionPins.pnpm.file.path, pnpmTarball);
      const engramArchive = join(mirrorRoot, ENGRAM_ARCHIVE_PATH);
      await mkdir(dirname(engramArchive), { recursive: true });
      await packEngramArchive(engramArchive);
      const tools = await packToolArchives(mirrorRoot);
      const pins = fixturePins({
        node: { path: nodeArchive.path, sha256: nodeArchive.sha256, size: nodeArchive.size },
        engram: { path: ENGRAM_ARCHIVE_PATH, sha256: await sha256File(engramArchive), size: (await stat(engramArchive)).size },
        ...tools,
      });
      await writeFile(pinsFile, JSON.stringify(pins, null, 2) + "\n");
      return pins;
    })();

    // The binary builds while the registry starts and the distributions resolve.
    const binaryBuild = skipBuild ? Promise.resolve(null) : pinsReady.then(() => lap("binary", () => buildFixtureBinary(pinsFile, runDir)));

    const releases = GENTLE_PI_VERSIONS.map((shell) => ({ shell, pi: FIXTURE_PI, id: versionId(shell, FIXTURE_PI) }));
    const distributions = (async () => {
      const [registry, pins, node, pnpmEntry] = await Promise.all([registryStart, pinsReady, nodeStart, pnpmStart]);
      await lap("distributions", () =>
        Promise.all(
          releases.map(async (release) => {
            // One throwaway prefix per release, so the two resolutions share no pnpm folders.
            // On Windows (the end-to-end lane) pnpm runs with that system's PATH key and separator.
            const platform = process.platform === "win32" ? "win32" : "linux";
            const layout = prefixLayout({ home: join(runDir, `distribution-home-${release.shell}`), platform, pins });
            await mkdir(dirname(layout.pnpm.npmrc), { recursive: true });
            // There TEMP and TMP name the prefix's tmp folder.
            if (platform === "win32") await mkdir(layout.tmp, { recursive: true });
            await writeFile(layout.pnpm.npmrc, `registry=${registry.url}\n`);
            const built = await buildDistribution({ shell: release.shell, pi: release.pi, node, pnpmEntry, layout, pins, env: process.env });
            const dir = join(mirrorRoot, "releases", `v${release.shell}`);
            await mkdir(dir, { recursive: true });
            await writeFile(join(dir, DISTRIBUTION_JSON), built.json);
            await writeFile(join(dir, DISTRIBUTION_LOCK), built.lockfile);
          }),
        ),
      );
      await registry.persist();
    })();

    // Each release's engine: the first is exactly the fixture binary's own script (the same bundle of the
    // same inputs), the newest an engine that says another gentle-shell-setup version, so a test sees whose runs.
    const engines = pinsReady.then(() =>
      lap("engines", () =>
        Promise.all(
          releases.map((release, i) =>
            buildEngineScript({
              pins: pinsFile,
              outfile: join(runDir, `engine-${release.shell}.cjs`),
              version: i === releases.length - 1 && i > 0 ? FIXTURE_NEXT_ENGINE : undefined,
            }),
          ),
        ),
      ),
    );
    const signed = Promise.all([distributions, engines, binaryBuild]).then(async ([, files, binary]) => {
      for (const [i, release] of releases.entries()) {
        await publishSignedRelease(join(mirrorRoot, "releases", `v${release.shell}`), {
          shell: release.shell,
          pi: release.pi,
          engine: await readFile(files[i]!),
          listed: binary ? { [basename(binary)]: binary } : {},
        });
      }
    });

    // Every part settles before any is read: a failure is thrown once nothing is still starting.
    const read = [registryStart, modelStart, engramStart, nodeStart, pnpmStart, pinsReady, binaryBuild] as const;
    const settled = await Promise.allSettled([...read, distributions, engines, signed]);
    const failed = settled.find((r): r is PromiseRejectedResult => r.status === "rejected");
    if (failed) throw failed.reason;
    const [registry, model, engram, node, pnpmEntry, pins, binary] = await Promise.all(read);

    const mirror = await track(startMirror({ root: mirrorRoot }));
    timings.total = (Date.now() - started) / 1000;
    log(`ready in ${timings.total.toFixed(1)} s`);

    const info: FixtureInfo = {
      registryUrl: registry.url,
      mirrorUrl: mirror.url,
      mirrorRoot,
      runDir,
      modelUrl: model.url,
      engramUrl: engram.url,
      pinsFile,
      pins,
      binary,
      releases,
      node,
      pnpmEntry,
      timings,
    };
    return {
      ...info,
      registry,
      mirror,
      model,
      engram,
      makeHome: (dir) => makeHome(dir, info),
      stop: stopAll,
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}

/** The fixture pins: production ones except the Node linux-x64 and Engram linux-x64 archives we built. */
type BuiltFile = { path: string; sha256: string; size: number };
export function fixturePins(built: { node: BuiltFile; engram: BuiltFile; fd: BuiltFile; ripgrep: BuiltFile }): Pins {
  return {
    kind: "fixture",
    node: {
      ...productionPins.node,
      source: "test/support/node-archive.ts: fixture archive from the verified Node 24.21.0 executable and npm 11.19.0",
      archives: { ...productionPins.node.archives, "linux-x64": { ...built.node, maxBytes: 100 * MiB } },
    },
    pnpm: productionPins.pnpm,
    go: productionPins.go,
    release: { keys: [FIXTURE_RELEASE_KEY.key], source: "test/support/release-key.ts: the fixture release signing key", pi: null },
    engram: {
      ...productionPins.engram,
      source: "test/support/engram.ts: fixture Engram archive (linux-x64 only)",
      archives: { ...productionPins.engram.archives, "linux-x64": { ...built.engram, maxBytes: 64 * MiB } },
    },
    tools: {
      fd: {
        ...productionPins.tools.fd,
        source: "test/support/pi-tools.ts: fixture fd archive (linux-x64 only)",
        archives: { ...productionPins.tools.fd.archives, "linux-x64": { ...built.fd, maxBytes: 32 * MiB } },
      },
      ripgrep: {
        ...productionPins.tools.ripgrep,
        source: "test/support/pi-tools.ts: fixture ripgrep archive (linux-x64 only)",
        archives: { ...productionPins.tools.ripgrep.archives, "linux-x64": { ...built.ripgrep, maxBytes: 32 * MiB } },
      },
    },
  };
}

/** pnpm 11.1.1 extracted from its verified tarball into CACHE_DIR; returns bin/pnpm.mjs. */
export async function ensurePnpmEntry(): Promise<string> {
  const tc = await toolchain();
  const version = productionPins.pnpm.version;
  const dir = join(tc.CACHE_DIR, `fixture-pnpm-${version}`);
  const entry = join(dir, "package", "bin", "pnpm.mjs");
  if (
    await stat(entry).then(
      (s) => s.isFile(),
      () => false,
    )
  )
    return entry;
  const tarball = await tc.ensurePackageTarball("pnpm", version);
  const work = `${dir}.tmp-${process.pid}-${randomBytes(4).toString("hex")}`;
  await mkdir(work, { recursive: true });
  try {
    await tar.x({ file: tarball, cwd: work });
    await rename(work, dir).catch(async (error: NodeJS.ErrnoException) => {
      if (error.code !== "EEXIST" && error.code !== "ENOTEMPTY") throw error;
    });
  } finally {
    await rm(work, { recursive: true, force: true });
  }
  return entry;
}

export interface TestHome {
  home: string;
  /** ~/.gentle-shell/agent, with the stub model configured. */
  agentDir: string;
  npmrc: string;
  /** An environment for a child run in this home (see homeEnv). */
  env: NodeJS.ProcessEnv;
}

/**
 * A throwaway HOME: `.npmrc` names the fixture registry (the path a
 * corporate user takes), and `~/.gentle-shell/agent` has the stub model.
 */
export async function makeHome(dir: string, info: Pick<FixtureInfo, "registryUrl" | "modelUrl">, options: { modelBaseUrl?: string } = {}): Promise<TestHome> {
  await mkdir(dir, { recursive: true });
  const npmrc = join(dir, ".npmrc");
  await writeFile(npmrc, `registry=${info.registryUrl}\n`);
  const agentDir = join(dir, ".gentle-shell", "agent");
  await writeStubModelConfig(agentDir, options.modelBaseUrl ?? `${info.modelUrl}/v1`);
  return { home: dir, agentDir, npmrc, env: homeEnv(dir) };
}

/** CI too: a CI service's own CI=true would keep the startup offer from checking (issue 41); a test that means CI sets it. */
const FOREIGN = /^(npm_|pnpm_|PNPM_HOME$|COREPACK_|NODE_OPTIONS$|NODE_PATH$|XDG_|PI_|GENTLE_|ENGRAM_|npm_config_|CI$|GSS_TEST_POLICY_ROOT$)/i;

/**
 * This process's environment for a child in `home`: HOME set, and no npm,
 * pnpm, XDG, Pi, Gentle or Engram settings leaking in from the test runner.
 */
export function homeEnv(home: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!FOREIGN.test(k)) env[k] = v;
  return { ...env, HOME: home, ...extra };
}
