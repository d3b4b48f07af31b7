/**
 * Offline as the launcher reads it (src/core/env-flags.ts, and
 * classifyLaunch's `offline` in src/core/pi-launch.ts) against the real Pi 1.6.0's own reading, taken from the Pi
 * a fixture install holds, as test/integration/pi-update-real.test.ts takes
 * parsePackageCommand: each function's text is compiled on its own and run
 * with a `process` of the test's making (they read nothing but
 * process.env.PI_OFFLINE and their argument). The oracles:
 *   - dist/main.js: isTruthyEnvFlag, and main()'s
 *     `const offlineMode = args.includes("--offline") || isTruthyEnvFlag(process.env.PI_OFFLINE);`
 *   - dist/core/package-manager.js: the exported isOfflineModeEnabled;
 *   - dist/utils/tools-manager.js: its isOfflineModeEnabled (fd and rg downloads).
 */
import { readFile } from "node:fs/promises";
import { Script } from "node:vm";
import { join } from "pathe";
import { beforeAll, describe, expect, it } from "vitest";
import { PI_PACKAGE } from "../../src/core/release-project";
import { piEnvFlag, piOfflineByEnv } from "../../src/core/env-flags";
import { classifyLaunch, piArguments } from "../../src/core/pi-launch";
import { fixtures } from "../support/context";
import { FIXTURE_PI } from "../support/fixtures";
import { installed } from "../support/installed";

const f = fixtures();
const latest = f.releases[f.releases.length - 1]!;

type Fake = { env: Record<string, string | undefined> };
let piDir: string;

/** A top-level function of tsc's output, from `opening` to the first closing brace at the start of a line. */
async function functionText(file: string, opening: string): Promise<string> {
  const source = await readFile(join(piDir, "dist", file), "utf8");
  const start = source.indexOf(`\n${opening}\n`);
  expect(start, `Pi's dist/${file} has no ${opening}`).toBeGreaterThan(0);
  return source.slice(start + 1, source.indexOf("\n}\n", start) + 2).replace(/^export /, "");
}

/** One of Pi's functions of PI_OFFLINE alone, run with that value. */
function envReader(text: string, name: string): (value: string | undefined) => boolean {
  const make = new Script(`(process) => { ${text}; return ${name}; }`, { filename: `pi-coding-agent/${name}.js` }).runInNewContext({});
  return (value) => make({ env: value === undefined ? {} : { PI_OFFLINE: value } } satisfies Fake)();
}

let mainFlag: (value: string | undefined) => boolean;
let packageManagerOffline: (value: string | undefined) => boolean;
let toolsManagerOffline: (value: string | undefined) => boolean;
/** main()'s offlineMode for Pi's arguments and PI_OFFLINE. */
let mainOffline: (args: readonly string[], value: string | undefined) => boolean;

const OFFLINE_LINE = 'const offlineMode = args.includes("--offline") || isTruthyEnvFlag(process.env.PI_OFFLINE);';

beforeAll(async () => {
  piDir = join((await installed(f)).prefix, "versions", latest.id, "node_modules", PI_PACKAGE);
  expect(JSON.parse(await readFile(join(piDir, "package.json"), "utf8")).version).toBe(FIXTURE_PI);
  const truthy = await functionText("main.js", "function isTruthyEnvFlag(value) {");
  const mainSource = await readFile(join(piDir, "dist", "main.js"), "utf8");
  // The one line of main() that decides offline mode, read as it stands.
  expect(mainSource).toContain(OFFLINE_LINE);
  const flag = new Script(`(${truthy.replace("function isTruthyEnvFlag", "function")})`).runInNewContext({});
  mainFlag = (value) => flag(value);
  const offline = new Script(`(args, process) => { ${truthy}; ${OFFLINE_LINE} return offlineMode; }`).runInNewContext({});
  mainOffline = (args, value) => offline(args, { env: value === undefined ? {} : { PI_OFFLINE: value } } satisfies Fake);
  packageManagerOffline = envReader(await functionText("core/package-manager.js", "export function isOfflineModeEnabled() {"), "isOfflineModeEnabled");
  toolsManagerOffline = envReader(await functionText("utils/tools-manager.js", "function isOfflineModeEnabled() {"), "isOfflineModeEnabled");
});

const VALUES = [undefined, "", "1", "true", "TRUE", "True", "tRuE", "yes", "YES", "Yes", "on", "ON", "0", "false", "FALSE", "no", "off"];
const ODD = [" 1", "1 ", "01", "2", "-1", "y", "t", "true ", " yes", "1\n", "truE\t", "ye", "yess", "\u0130", "null", "undefined"];

describe("PI_OFFLINE as the real Pi 1.6.0 reads it", () => {
  it("is 1, true or yes in any case, and nothing else", () => {
    for (const value of ["1", "true", "TRUE", "yes", "YES"]) expect(packageManagerOffline(value), value).toBe(true);
    for (const value of [undefined, "", "on", "0", "false", " 1"]) expect(packageManagerOffline(value), String(value)).toBe(false);
  });

  it("is our rule, for every value, in each of Pi's three readers", () => {
    for (const value of [...VALUES, ...ODD]) {
      const ours = piEnvFlag(value);
      expect(ours, JSON.stringify(value)).toBe(packageManagerOffline(value));
      expect(ours, JSON.stringify(value)).toBe(toolsManagerOffline(value));
      expect(ours, JSON.stringify(value)).toBe(mainFlag(value));
      expect(piOfflineByEnv(value === undefined ? {} : { PI_OFFLINE: value }), JSON.stringify(value)).toBe(ours);
    }
  });
});

describe("an offline launch is one Pi 1.6.0's main() runs offline", () => {
  const ARGS: string[][] = [
    [],
    ["--offline"],
    ["-p", "hi", "--offline"],
    // Pi's args.includes does not stop at `--`, nor skip another option's value: neither do we.
    ["--", "--offline"],
    ["--model", "--offline"],
    ["-p", "--offline"],
    ["--offline=1"],
    ["-p", "work --offline"],
    ["install", "npm:x", "--offline"],
    ["list"],
    ["--continue"],
  ];
  it("for each launch and PI_OFFLINE value, with the arguments the launcher hands to Pi", () => {
    const install = { gentlePiRoot: "/p/versions/v/node_modules/gentle-pi" };
    for (const args of ARGS) {
      for (const value of [undefined, "1", "TRUE", "on", "0", " 1"]) {
        const env = value === undefined ? {} : { PI_OFFLINE: value };
        const launch = classifyLaunch(args, env);
        expect(launch.offline, `${JSON.stringify(args)} PI_OFFLINE=${JSON.stringify(value)}`).toBe(mainOffline(piArguments(install, launch), value));
      }
    }
  });
});
