#!/usr/bin/env node
/**
 * npm run demo [-- --keep <dir>]
 *
 * Shows the main job on this machine, with nothing but the local fixtures:
 * 1. builds the installer binary with fixture pins (node build/build.mjs
 *    --pins <fixture pins> --out dist/fixture: the binary the end-to-end tests
 *    use, at dist/fixture/gentle-shell-setup-linux-x64);
 * 2. starts the fixtures: a local npm registry holding the fixture gentle-pi
 *    (and proxying the real Pi), the artifact mirror, a stub model;
 * 3. installs Gentle Shell into a throwaway HOME that holds only an .npmrc
 *    naming that registry, exactly as `gentle-shell-setup install --yes
 *    --source <mirror>`: the installer creates ~/.gentle-shell itself, so
 *    what the demo leaves is the canonical layout (the prefix 0700);
 * 4. points the installed agent home at the stub model, then asks the real
 *    Pi one question through the installed launcher.
 * --keep <dir> leaves that HOME at <dir> for inspection.
 *
 * What the demo's own run started and left running (the shared Engram server
 * the launcher starts for Pi, from the HOME's runtime) is stopped at the end;
 * with --keep it is left running, and the demo names it and how to stop it.
 * A process is the demo's when its executable or working folder lies in the
 * throwaway HOME.
 */
import { spawn } from "node:child_process";
import { mkdir, mkdtemp, readdir, readFile, readlink, realpath, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { loadFixturesModule } from "../test/support/load-support.mjs";

const args = process.argv.slice(2);
let keep = null;
for (let i = 0; i < args.length; i++) {
  if (args[i] === "--keep") keep = resolve(args[++i] ?? "");
  else if (args[i]?.startsWith("--keep=")) keep = resolve(args[i].slice(7));
  else {
    process.stderr.write(`demo: unknown argument ${args[i]}\nusage: npm run demo [-- --keep <dir>]\n`);
    process.exit(2);
  }
}
if (keep && (await stat(keep).catch(() => null))) {
  process.stderr.write(`demo: ${keep} already exists; name a new folder for --keep\n`);
  process.exit(2);
}

const say = (line) => process.stdout.write(`${line}\n`);
const started = Date.now();
const seconds = () => ((Date.now() - started) / 1000).toFixed(1);

function runShown(command, argv, env) {
  return new Promise((resolvePromise, reject) => {
    say(`$ ${[command, ...argv].map((a) => (/[\s"'$]/.test(a) ? JSON.stringify(a) : a)).join(" ")}`);
    const child = spawn(command, argv, { env, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    const show = (chunk) => {
      out += chunk;
      process.stdout.write(chunk.toString().replace(/^(?=.)/gm, "  "));
    };
    child.stdout.on("data", show);
    child.stderr.on("data", show);
    child.on("error", reject);
    child.on("close", (code) => resolvePromise({ code, out }));
  });
}

/**
 * Processes whose executable or working folder lies in `dir` (Linux's /proc):
 * what this demo's run started from its HOME (the fixture Engram is a
 * `node -e` script working in the HOME).
 */
async function processesIn(dir) {
  const found = [];
  const inside = (path) => path === dir || path?.startsWith(`${dir}/`) || path?.startsWith(`${dir} (deleted)`);
  for (const name of await readdir("/proc").catch(() => [])) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    const [exe, cwd] = await Promise.all(["exe", "cwd"].map((link) => readlink(`/proc/${name}/${link}`).catch(() => null)));
    if (!inside(exe) && !inside(cwd)) continue;
    const command = (await readFile(`/proc/${name}/comm`, "utf8").catch(() => "?")).trim();
    found.push({ pid: Number(name), command });
  }
  return found;
}

const gone = (pid) =>
  stat(`/proc/${pid}`).then(
    () => false,
    () => true,
  );

/** Stop them: SIGTERM, then SIGKILL for one still there after 5 s. */
async function stopAll(found) {
  for (const { pid } of found) process.kill(pid, "SIGTERM");
  const deadline = Date.now() + 5000;
  for (const { pid } of found) {
    while (!(await gone(pid)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    if (!(await gone(pid))) process.kill(pid, "SIGKILL");
  }
}

say("Starting the local fixtures and building the fixture-pinned installer...");
const { module: support, cleanup } = await loadFixturesModule();
let fixtures;
try {
  fixtures = await support.startFixtures({ log: (line) => say(`  fixtures: ${line}`) });
} catch (error) {
  // Nothing of the demo is left behind: the fixtures removed their own folder, this removes the support bundle.
  await cleanup();
  say(`Demo failed: the local fixtures did not start: ${error.message}`);
  process.exit(1);
}
let ok = false;
const home = keep ?? (await mkdtemp(join(tmpdir(), "gss-demo-home-")));
try {
  say(`Fixtures ready in ${seconds()} s: registry ${fixtures.registryUrl}, mirror ${fixtures.mirrorUrl}, stub model ${fixtures.modelUrl}`);
  say(`Throwaway HOME: ${home} (its .npmrc names the local registry)`);
  // Only the .npmrc before the install: ~/.gentle-shell is the installer's to create.
  await mkdir(home, { recursive: true });
  await writeFile(join(home, ".npmrc"), `registry=${fixtures.registryUrl}\n`);
  const env = support.homeEnv(home);
  const install = await runShown(fixtures.binary, ["install", "--yes", "--source", fixtures.mirrorUrl], env);
  if (install.code !== 0) throw new Error(`the installer exited with ${install.code}`);
  const prefixMode = (await stat(join(home, ".gentle-shell"))).mode & 0o777;
  if (prefixMode !== 0o700) throw new Error(`~/.gentle-shell has mode ${prefixMode.toString(8)}, not 700`);
  // The stub model afterwards, in the agent home the installer made.
  await support.writeStubModelConfig(join(home, ".gentle-shell", "agent"), `${fixtures.modelUrl}/v1`);
  say(`Pointed ~/.gentle-shell/agent at the stub model (models.json, settings.json)`);
  const launcher = join(home, ".gentle-shell", "bin", "gentle-shell");
  const version = await runShown(launcher, ["--version"], env);
  if (version.code !== 0) throw new Error(`gentle-shell --version exited with ${version.code}`);
  const answer = await runShown(launcher, ["-p", "Say hi to the person running this demo."], {
    ...env,
    PI_OFFLINE: "1",
    PI_TELEMETRY: "0",
  });
  if (answer.code !== 0) throw new Error(`gentle-shell -p exited with ${answer.code}`);
  const asked = fixtures.model.requests.length;
  say(
    `Done in ${seconds()} s: the real Pi ${fixtures.releases.at(-1).pi} answered through ${launcher} (the stub model saw ${asked} request${asked === 1 ? "" : "s"}).`,
  );
  ok = true;
} catch (error) {
  say(`Demo failed: ${error.message}`);
} finally {
  const left = await processesIn(await realpath(home).catch(() => home));
  const named = left.map(({ pid, command }) => `${command} (pid ${pid})`).join(", ");
  if (left.length && keep) say(`Left running from the kept HOME: ${named}; stop it with: kill ${left.map((p) => p.pid).join(" ")}`);
  else if (left.length) {
    await stopAll(left);
    say(`Stopped what the demo's run started: ${named}.`);
  }
  await fixtures.stop();
  await cleanup();
  if (keep) say(`Kept the HOME at ${keep}; try: HOME=${keep} ${keep}/.gentle-shell/bin/gentle-shell --version`);
  else await rm(home, { recursive: true, force: true });
}
process.exit(ok ? 0 : 1);
