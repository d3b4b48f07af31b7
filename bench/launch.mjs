/**
 * Starting things, once installed: the launcher against the same Pi started
 * directly on the same Node (`--version`, `--help`, and `-p` against the stub model;
 * Pi runs in the launcher's own Node, issue 29),
 * and `gentle-shell-setup --version` and `--help` against `node -e 0` on the
 * Node the binary embeds, with the binary's size over that Node's.
 *
 *   launchSection({ fixtures, support, work, runs, clean }) → Promise<string[]>
 *
 * fixtures: startFixtures' result; support: the fixtures module (its
 * writeStubModelConfig); work: a scratch folder of the caller's; runs: timed
 * runs of each case, in alternation after one warm-up each; clean: the
 * environment without npm_, pnpm_, PI_ and GENTLE_ variables.
 */
import { execFile, spawn } from "node:child_process";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { promisify } from "node:util";
import { median, raw, spread } from "./stats.mjs";

const run = promisify(execFile);

export async function launchSection({ fixtures, support, work, runs, clean }) {
  const home = join(work, "launch-home");
  await mkdir(home, { recursive: true });
  await writeFile(join(home, ".npmrc"), `registry=${fixtures.registryUrl}\n`);
  // Memory off by policy (no Engram server in the timings), Pi offline and without telemetry: the same for both sides.
  const env = { ...clean, HOME: home, SHELL: "/bin/bash", ENGRAM_STARTUP_POLICY: "disabled", PI_OFFLINE: "1", PI_TELEMETRY: "0", LANG: "C.UTF-8" };
  await run(fixtures.binary, ["install", "--yes", "--no-setup", "--source", fixtures.mirrorUrl], { env, cwd: home, maxBuffer: 16 << 20 });
  const prefix = join(home, ".gentle-shell");
  const agent = join(prefix, "agent");
  await support.writeStubModelConfig(agent, `${fixtures.modelUrl}/v1`);
  const latest = fixtures.releases.at(-1);
  const piRoot = join(prefix, "versions", latest.id, "node_modules", "@earendil-works", "pi-coding-agent");
  const piPackage = JSON.parse(readFileSync(join(piRoot, "package.json"), "utf8"));
  const piCli = join(piRoot, typeof piPackage.bin === "string" ? piPackage.bin : Object.values(piPackage.bin)[0]);
  const nodeDir = readdirSync(join(prefix, "runtime")).find((name) => name.startsWith("node-"));
  const node = join(prefix, "runtime", nodeDir, "bin", "node");
  const launcher = join(prefix, "bin", "gentle-shell");
  // Pi started directly sees the agent home and variables the launcher gives it, and the arguments:
  // the version's gentle-pi as Pi's --extension first (src/core/pi-launch.ts piArguments).
  const direct = {
    ...env,
    PI_CODING_AGENT_DIR: agent,
    GENTLE_PI_AGENT_HOME: agent,
    GENTLE_SHELL_PREFIX: prefix,
    PI_SKIP_VERSION_CHECK: "1",
    NODE_USE_SYSTEM_CA: "1",
  };
  const gentlePi = join(prefix, "versions", latest.id, "node_modules", "gentle-pi");
  const prompt = "Say hi.";
  const cases = {
    launcherVersion: [launcher, ["--version"], env],
    piVersion: [node, [piCli, "--version"], direct],
    launcherPrint: [launcher, ["-p", prompt], env],
    piPrint: [node, [piCli, "--extension", gentlePi, "-p", prompt], direct],
    piPrintBare: [node, [piCli, "-p", prompt], direct],
    launcherHelp: [launcher, ["--help"], env],
    piHelp: [node, [piCli, "--extension", gentlePi, "--help"], direct],
    setupVersion: [fixtures.binary, ["--version"], env],
    setupHelp: [fixtures.binary, ["--help"], env],
    nodeE0: [fixtures.node, ["-e", "0"], env],
  };
  const times = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
  // stdin is /dev/null: Pi's -p reads a piped stdin to its end.
  const once = ([command, args, childEnv]) =>
    new Promise((resolve, reject) => {
      const t = performance.now();
      const child = spawn(command, args, { env: childEnv, cwd: home, stdio: ["ignore", "ignore", "pipe"] });
      let stderr = "";
      child.stderr.on("data", (chunk) => {
        stderr += chunk;
      });
      child.on("error", reject);
      child.on("close", (code) => {
        if (code === 0) resolve(performance.now() - t);
        else reject(new Error(`${command} ${args.join(" ")} exited with ${code}: ${stderr.slice(-500)}`));
      });
    });
  for (const c of Object.values(cases)) await once(c);
  for (let i = 0; i < runs; i++) {
    for (const [k, c] of Object.entries(cases)) times[k].push(await once(c));
    process.stderr.write(`bench: launch run ${i + 1}/${runs}\n`);
  }
  // Same-run ratios: run i of a over run i of b (taken one after the other), their median (min–max).
  const pairs = (a, b) => times[a].map((t, n) => t / times[b][n]);
  const paired = (a, b) => {
    const r = pairs(a, b);
    return `${median(r).toFixed(2)}× (${Math.min(...r).toFixed(2)}–${Math.max(...r).toFixed(2)})`;
  };
  const pairedPlus = (a, b) => {
    const d = times[a].map((t, n) => t - times[b][n]);
    const f = (v) => `${v >= 0 ? "+" : "−"}${Math.abs(v).toFixed(0)}`;
    return `${f(median(d))} ms (${f(Math.min(...d))} to ${f(Math.max(...d))})`;
  };
  const binarySize = statSync(fixtures.binary).size;
  const nodeSize = statSync(fixtures.node).size;
  const mib = (bytes) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
  return [
    "## Starting, once installed",
    "",
    `The installed launcher (\`~/.gentle-shell/bin/gentle-shell\`, gentle-pi ${latest.shell} with Pi ${latest.pi}, installed with \`--no-setup\`) against the same Pi's entry (\`${piCli.slice(piRoot.length + 1)}\`) started directly on the same Node 24.21.0 with the same agent home and variables; \`-p\` asks the stub model on 127.0.0.1 (models.json and settings.json in the agent home). Memory is off by policy on both sides (\`ENGRAM_STARTUP_POLICY=disabled\`), Pi offline and without telemetry. Medians and (min–max) of ${runs} runs each, in alternation after one warm-up each, timed from the bench's Node (spawn included on both sides).`,
    "",
    "Pi runs in the launcher's own Node (issue 29): the engine decides the launch, then loads Pi's CLI into its process. Its anchor is the same Pi given the same arguments (the version's gentle-pi as `--extension`, as the launcher gives it); Pi without gentle-pi is a second reference. Ratio and difference are taken run by run (each launcher run against the anchor run right after it): median (min–max).",
    "",
    "| what | median (min–max) | against | same-run ratio | same-run difference |",
    "|---|---|---|---|---|",
    `| \`gentle-shell -p "${prompt}"\` (engine, then Pi in the same Node) | ${spread(times.launcherPrint)} | Pi's \`--extension <gentle-pi> -p\` directly: ${spread(times.piPrint)} | ${paired("launcherPrint", "piPrint")} | ${pairedPlus("launcherPrint", "piPrint")} |`,
    `| \`gentle-shell --help\` (Gentle Shell's commands, then Pi's help in the same Node) | ${spread(times.launcherHelp)} | Pi's \`--extension <gentle-pi> --help\` directly: ${spread(times.piHelp)} | ${paired("launcherHelp", "piHelp")} | ${pairedPlus("launcherHelp", "piHelp")} |`,
    `| \`gentle-shell -p "${prompt}"\` | ${spread(times.launcherPrint)} | Pi's \`-p\` directly, without gentle-pi: ${spread(times.piPrintBare)} | ${paired("launcherPrint", "piPrintBare")} | ${pairedPlus("launcherPrint", "piPrintBare")} |`,
    `| \`gentle-shell --version\` (reads the pinned Pi's package.json; Pi is not started) | ${spread(times.launcherVersion)} | Pi's \`--version\` directly: ${spread(times.piVersion)} | ${paired("launcherVersion", "piVersion")} | ${pairedPlus("launcherVersion", "piVersion")} |`,
    `| \`gentle-shell-setup --version\` | ${spread(times.setupVersion)} | \`node -e 0\`, Node 24.21.0: ${spread(times.nodeE0)} | ${paired("setupVersion", "nodeE0")} | ${pairedPlus("setupVersion", "nodeE0")} |`,
    `| \`gentle-shell-setup --help\` | ${spread(times.setupHelp)} | \`node -e 0\` | ${paired("setupHelp", "nodeE0")} | ${pairedPlus("setupHelp", "nodeE0")} |`,
    "",
    `The binary timed is the fixture build (the same code as a release, built with the test pins): ${mib(binarySize)}, against ${mib(nodeSize)} for the Node 24.21.0 executable it is made from: ${mib(binarySize - nodeSize)} more (${(binarySize / nodeSize).toFixed(3)}×).`,
    "",
    ...Object.entries(times).map(([k, v]) => `- ${k} (ms): ${raw(v)}`),
    "",
    `Goals (issues 15 and 29): a launch that starts Pi at most +30 ms over that Pi started directly, for \`-p\` and \`--help\`; \`--version\` ≤ 1.05× Pi's own; \`gentle-shell-setup --version\` and \`--help\` ≤ 1.2× \`node -e 0\`. Here: ${pairedPlus("launcherPrint", "piPrint")}, ${pairedPlus("launcherHelp", "piHelp")}, ${paired("launcherVersion", "piVersion")}, ${paired("setupVersion", "nodeE0")} and ${paired("setupHelp", "nodeE0")}.`,
    "",
  ];
}
