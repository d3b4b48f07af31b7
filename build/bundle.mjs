/**
 * The esbuild part of the build (build/build.mjs, step 1 and the SEA's main
 * script): every bundle of src/ is one CommonJS script for Node 24 with the
 * installer's version and, in a test build, the fixture pins compiled in.
 *
 * - bundleEngine: src/main.ts's bundle with the launch part (src/launch.ts's
 *   bundle, the full engine's modules stubbed out) at its head.
 * - seaTexts, bundleSeaMain: the texts the single executable answers
 *   --version and the top help with, and its tiny main script.
 * - readFixturePins: the only way a test build's pins get in.
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs/promises";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { importSource } from "./toolchain.mjs";

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const COMPILED_PINS = path.join(REPO_ROOT, "src", "pins", "compiled.ts");

/** A test build's pins file (--pins), checked to be one. */
export async function readFixturePins(file) {
  let pins;
  try {
    pins = JSON.parse(await fs.readFile(file, "utf8"));
  } catch (error) {
    throw new Error(`--pins ${file}: ${error.message}`);
  }
  // A test build must never pass for a release build.
  if (!pins || typeof pins !== "object" || pins.kind !== "fixture") {
    throw new Error(`--pins ${file}: a pins file for a test build must have "kind": "fixture"`);
  }
  for (const key of ["node", "pnpm", "go", "engram", "release"]) {
    if (!pins[key] || typeof pins[key] !== "object") throw new Error(`--pins ${file}: missing "${key}"`);
  }
  return pins;
}

/** How every script the build bundles is made: one CommonJS file for Node 24, unminified, licences at its end. */
export const NODE_BUNDLE = {
  absWorkingDir: REPO_ROOT,
  bundle: true,
  platform: "node",
  format: "cjs",
  target: "node24",
  minify: false,
  legalComments: "eof",
  sourcemap: false,
};

/** The startup offer's registry budget in a test build; a release build keeps the spec's 1.5 s. */
const TEST_OFFER_BUDGET_MS = 30_000;

/** esbuild settings every bundle of src/ shares: the installer's version, and the fixture pins of a test build. */
async function commonOptions(fixturePins, version) {
  const pkg = JSON.parse(await fs.readFile(path.join(REPO_ROOT, "package.json"), "utf8"));
  if (version !== undefined && !fixturePins) throw new Error("another version than package.json's is for a test build only");
  const plugins = [];
  if (fixturePins) {
    plugins.push({
      name: "fixture-pins",
      setup(b) {
        b.onLoad({ filter: /[\\/]src[\\/]pins[\\/]compiled\.ts$/ }, (args) => {
          if (path.resolve(args.path) !== COMPILED_PINS) return undefined;
          return {
            loader: "ts",
            contents:
              `// Test build: fixture pins compiled in by build/build.mjs --pins.\n` +
              `import type { Pins } from "./types";\n` +
              `export const compiledPins: Pins = ${JSON.stringify(fixturePins, null, 2)};\n`,
          };
        });
      },
    });
    plugins.push(killHolds());
  }
  return {
    ...NODE_BUNDLE,
    define: {
      __GSS_VERSION__: JSON.stringify(version ?? pkg.version),
      // A test build only: the startup offer waits for the registry as long as a loaded test machine needs (src/engine/startup-offer.ts).
      ...(fixturePins ? { __GSS_OFFER_BUDGET_MS__: String(TEST_OFFER_BUDGET_MS) } : {}),
    },
    plugins,
    logLevel: "warning",
    metafile: true,
  };
}

const KILL_HOLD = path.join(REPO_ROOT, "src", "io", "kill-hold.ts");
const KILL_HOLD_TEST = path.join(REPO_ROOT, "src", "io", "kill-hold-test.ts");

/**
 * A test build only: src/io/kill-hold.ts (nothing holds) is replaced by
 * src/io/kill-hold-test.ts, which stops a process at the step mark
 * GSS_HOLD_AT names until a kill test kills it. A release build never
 * contains that code.
 */
function killHolds() {
  return {
    name: "kill-holds",
    setup(b) {
      b.onLoad({ filter: /[\\/]src[\\/]io[\\/]kill-hold\.ts$/ }, async (args) => {
        if (path.resolve(args.path) !== KILL_HOLD) return undefined;
        return { loader: "ts", contents: await fs.readFile(KILL_HOLD_TEST, "utf8"), resolveDir: path.dirname(KILL_HOLD_TEST) };
      });
    },
  };
}

/**
 * The engine: src/main.ts's bundle, with the launch part (src/launch.ts's
 * bundle) at its head, joined by src/install/engine-start.ts's
 * engineWithLaunchPart (the install cuts the part out again with launchPartOf).
 */
export async function bundleEngine(outfile, fixturePins, version) {
  const esbuild = await import("esbuild");
  const options = await commonOptions(fixturePins, version);
  const [engine, launch, join] = await Promise.all([
    esbuild.build({ ...options, entryPoints: [path.join(REPO_ROOT, "src", "main.ts")], write: false, outfile }),
    esbuild.build({
      ...options,
      plugins: [...options.plugins, fullEngineOnly()],
      entryPoints: [path.join(REPO_ROOT, "src", "launch.ts")],
      write: false,
      outfile,
    }),
    engineStart(),
  ]);
  if (fixturePins) {
    for (const result of [engine, launch]) {
      const inputs = Object.keys(result.metafile.inputs).map((p) => path.resolve(REPO_ROOT, p));
      if (!inputs.includes(COMPILED_PINS)) {
        throw new Error("--pins: src/pins/compiled.ts is not part of the bundle, so the fixture pins were not compiled in");
      }
    }
  }
  await fs.writeFile(outfile, join.engineWithLaunchPart(engine.outputFiles[0].text, launch.outputFiles[0].text));
}

/**
 * What the launch part never runs (src/engine/launch-part.ts sends those
 * launches to the full engine before they get there): in its bundle each of
 * these modules is one line that fails loudly, so the part stays small.
 */
const FULL_ENGINE_ONLY = [
  "src/commands/setup.ts",
  "src/engine/startup-offer.ts",
  "src/commands/upgrade.ts",
  "src/commands/update.ts",
  "src/engine/relaunch.ts",
  "src/commands/status/command.ts",
  "src/commands/status/probes.ts",
  "src/commands/memory/migrate.ts",
  "src/commands/self-uninstall/removal-plan.ts",
  "src/commands/self-uninstall/bound.ts",
  "src/engine/companion/ensure.ts",
  "src/engine/companion/pi-io.ts",
  "src/install/runtime/pi-tool-runtime.ts",
  // doctor is one of Shell's own commands (the full engine's), and --fix brings the runtimes' downloaders and archive readers.
  "src/commands/doctor/command.ts",
  // completions (issue 42): the script generators are the full engine's.
  "src/commands/completions.ts",
  // The Host's HTTP client (src/io/http-client.ts) loads these at its first request, and a launch the part takes to
  // the end makes none (the offer, first use and Pi's tools go on in the full engine).
  "src/io/http-get.ts",
  "src/io/transport.ts",
  "src/io/download.ts",
  "src/io/bounded-fetch.ts",
];
/** Packages the launch part never loads: progress bars are for downloads. */
const FULL_ENGINE_ONLY_PACKAGES = ["cli-progress"];

function fullEngineOnly() {
  const only = new Set(FULL_ENGINE_ONLY.map((file) => path.join(REPO_ROOT, file)));
  return {
    name: "full-engine-only",
    setup(b) {
      const fails = (name) => ({
        loader: "js",
        contents: `throw new Error(${JSON.stringify(`internal: ${name} runs only in the full engine, not in the launch part`)});\n`,
      });
      b.onLoad({ filter: /\.ts$/ }, (args) => {
        if (!only.has(path.resolve(args.path))) return undefined;
        return fails(path.relative(REPO_ROOT, args.path).split(path.sep).join("/"));
      });
      const packages = new RegExp(`^(${FULL_ENGINE_ONLY_PACKAGES.join("|")})$`);
      b.onResolve({ filter: packages }, (args) => ({ path: args.path, namespace: "full-engine-only" }));
      b.onLoad({ filter: /.*/, namespace: "full-engine-only" }, (args) => fails(args.path));
    },
  };
}

let engineStartPromise;
/** src/install/engine-start.ts, compiled in memory: the one place the engine's two parts are joined and cut. */
function engineStart() {
  engineStartPromise ??= importSource("install", "engine-start.ts");
  return engineStartPromise;
}

/** An environment for a child Node without the host's NODE_OPTIONS or NODE_PATH. */
export function cleanEnv(extra = {}) {
  const env = { ...process.env, ...extra };
  for (const key of Object.keys(env)) {
    if (/^NODE_(OPTIONS|PATH)$/i.test(key)) delete env[key];
  }
  return env;
}

/**
 * The texts the single executable answers --version and the top-level help
 * with (src/sea/shortcut.ts), rendered by the installer's own code from the
 * same sources and pins: citty's help once with its colours, once without.
 */
export async function seaTexts(fixturePins, version, work) {
  const esbuild = await import("esbuild");
  const probe = path.join(work, "sea-texts.cjs");
  await esbuild.build({
    ...(await commonOptions(fixturePins, version)),
    stdin: {
      contents:
        `import { topHelpText, versionLine } from "./src/cli/index";\n` +
        `import { buildPins } from "./src/pins/index";\n` +
        `topHelpText().then((help) => process.stdout.write(JSON.stringify({ version: versionLine(buildPins()), help })));\n`,
      resolveDir: REPO_ROOT,
      loader: "ts",
      sourcefile: "sea-texts.ts",
    },
    outfile: probe,
  });
  const render = (env) => {
    const run = spawnSync(process.execPath, [probe], { env: cleanEnv(env), encoding: "utf8" });
    if (run.status !== 0) throw new Error(`rendering the help texts failed (exit ${run.status}): ${run.stderr || run.error?.message}`);
    return JSON.parse(run.stdout);
  };
  const colored = render({ NO_COLOR: undefined, TERM: "xterm-256color", TEST: undefined, CI: undefined });
  const plain = render({ NO_COLOR: "1" });
  if (colored.version !== plain.version) throw new Error("the version line depends on the environment");
  return { version: plain.version, help: plain.help, helpColor: colored.help };
}

/** The single executable's tiny main script (src/sea/main.ts) with the texts compiled in. */
export async function bundleSeaMain(outfile, texts) {
  const esbuild = await import("esbuild");
  await esbuild.build({
    ...NODE_BUNDLE,
    entryPoints: [path.join(REPO_ROOT, "src", "sea", "main.ts")],
    outfile,
    define: { __GSS_SEA_TEXTS__: JSON.stringify(texts) },
    logLevel: "warning",
  });
}
