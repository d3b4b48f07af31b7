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
 */
import { spawn } from "node:child_process";
import { mkdir, mkdtemp, rm, stat, writeFile } from "node:fs/promises";
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

say("Starting the local fixtures and building the fixture-pinned installer...");
const { module: support, cleanup } = await loadFixturesModule();
const fixtures = await support.startFixtures({ log: (line) => say(`  fixtures: ${line}`) });
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
  await fixtures.stop();
  await cleanup();
  if (keep) say(`Kept the HOME at ${keep}; try: HOME=${keep} ${keep}/.gentle-shell/bin/gentle-shell --version`);
  else await rm(home, { recursive: true, force: true });
}
process.exit(ok ? 0 : 1);
