/**
 * The first install, end to end, on the built single-executable with fixture
 * pins: a fresh HOME whose .npmrc names the local registry ends with a
 * working gentle-shell that starts the real Pi.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { registryLine, writeNpmrc } from "../support/npmrc";
import { promises as fs } from "node:fs";
import { join } from "pathe";
import { fixtures } from "../support/context";
import { homeEnv } from "../support/fixtures";
import { prepareInstall, runInstall } from "../support/installed";
import { mirrorClient } from "../support/mirror";
import { type RunResult, runCommand } from "../support/proc";
import { writeStubModelConfig } from "../support/stub-model";
import { GENTLE_PI_MARKER, readGentleAiRuns } from "../support/gentle-pi";
import { scratchHomePath } from "../support/home";
import { launcherIn } from "../support/launch";

const f = fixtures();
const latest = f.releases[f.releases.length - 1]!;

async function mode(path: string) {
  return (await fs.lstat(path)).mode & 0o777;
}

describe("a first install into a fresh HOME", () => {
  const home = scratchHomePath({ name: "fresh home" });
  // The user's ~/.npmrc: the registry, a key that is not copied, and a token by reference.
  const npmrc = [registryLine(f.registryUrl), "prefix=/should/not/be/copied", "//127.0.0.1/:_authToken=${GSS_TEST_TOKEN}"];
  let result: RunResult;

  beforeAll(async () => {
    result = await runInstall(f, home, [], { npmrc, env: { GSS_TEST_TOKEN: "never-printed-secret" } });
  });

  it("exits 0 and reports every step, the launcher path and what to do next", () => {
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    for (const step of ["claim", "npm-settings", "runtime", "version", "activate", "launcher", "verify-launcher", "path", "setup"]) {
      expect(result.stdout).toMatch(new RegExp(`^✔ ${step}: `, "m"));
    }
    // The steps in the plan's order, setup last.
    const reported = [...result.stdout.matchAll(/^✔ ([a-z-]+): /gm)].map((m) => m[1]);
    expect(reported).toEqual(["claim", "npm-settings", "runtime", "version", "activate", "launcher", "verify-launcher", "path", "setup"]);
    expect(result.stdout).toContain("✔ setup: gentle-shell setup set up Gentle AI for Pi");
    expect(result.stdout).toContain(`gentle-pi ${latest.shell} with Pi ${latest.pi} installed in versions/${latest.id}`);
    expect(result.stdout).toContain("Gentle Shell is installed: ~/.gentle-shell/bin/gentle-shell");
    expect(result.stdout).not.toContain(home);
    expect(result.stdout).not.toContain("never-printed-secret");
  });

  it("ends with gentle-shell setup, through the launcher, in the setup environment, and records that it ran", async () => {
    const prefix = join(home, ".gentle-shell");
    const runs = await readGentleAiRuns(join(prefix, "gentle-ai"));
    expect(runs).toHaveLength(1);
    const run = runs[0]!;
    expect(run.argv).toEqual(["install", "--agent", "pi"]);
    expect(run.version).toBe(latest.shell);
    // setupEnvironment: npm's settings inside the prefix; our node, then the version's .bin, then the user's PATH (once).
    expect(run.env).toMatchObject({
      npm_config_userconfig: join(prefix, "pnpm", "config", "npmrc"),
      npm_config_globalconfig: join(prefix, "npm", "npmrc"),
      npm_config_prefix: join(prefix, "npm", "prefix"),
      npm_config_cache: join(prefix, "npm", "cache"),
      npm_config_update_notifier: "false",
      GENTLE_AI_HOME: join(prefix, "gentle-ai"),
      GENTLE_AI_ENGRAM_BIN: join(prefix, "runtime", "engram-3.5.2", "engram"),
    });
    const front = [join(prefix, "runtime", "node-24.21.0", "bin"), join(prefix, "versions", latest.id, "node_modules", ".bin")].join(":");
    expect(run.env.PATH).toBe(`${front}:${process.env.PATH}`);
    // The installer's own settings never reach it.
    expect(run.env).not.toHaveProperty("PNPM_HOME");
    expect(Object.keys(run.env).filter((k) => /^pnpm_config_/.test(k))).toEqual([]);
    expect(await fs.readFile(join(prefix, "runtime", "engram-3.5.2", ".gentle-shell-runtime"), "utf8")).toMatch(/^engram 3\.5\.2 /);
    const marker = join(prefix, "config", "setup.json");
    expect(JSON.parse(await fs.readFile(marker, "utf8"))).toMatchObject({ schema: 1, status: "done", by: "setup", version: latest.id });
    expect(await mode(marker)).toBe(0o600);
  });

  it("prints exactly gentle-shell <shell> and pi <pi> from the launcher", async () => {
    const r = await runCommand(launcherIn(home), ["--version"], { env: homeEnv(home) });
    expect(r.code).toBe(0);
    expect(r.stdout.split("\n").slice(0, 2)).toEqual([`gentle-shell ${latest.shell}`, `pi ${latest.pi}`]);
  });

  it("starts the real Pi with gentle-pi loaded, and prints the stub model's answer", async () => {
    const agent = join(home, ".gentle-shell", "agent");
    await writeStubModelConfig(agent, `${f.modelUrl}/v1`);
    // Memory off by the user's policy: setup published the verified core, and Pi would otherwise start
    // the shared server on this machine's default endpoint (127.0.0.1:7437).
    const r = await runCommand(launcherIn(home), ["-p", "say hi"], {
      env: homeEnv(home, { PI_OFFLINE: "1", PI_TELEMETRY: "0", ENGRAM_STARTUP_POLICY: "disabled" }),
      cwd: home,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe("Hello from the stub model.");
    const marker = JSON.parse(await fs.readFile(join(agent, GENTLE_PI_MARKER), "utf8"));
    expect(marker.version).toBe(latest.shell);
    // Pi gets the guard and no URL; Gentle AI's variables are setup's only.
    expect(marker.env.ENGRAM_BIN).toBe(join(home, ".gentle-shell", "bin", "engram-guard"));
    expect(marker.env).not.toHaveProperty("ENGRAM_URL");
    expect(Object.keys(marker.env).filter((k) => k.startsWith("GENTLE_AI_"))).toEqual([]);
    // A print-mode launch never runs setup again.
    expect(await readGentleAiRuns(join(home, ".gentle-shell", "gentle-ai"))).toHaveLength(1);
  });

  it("sets Pi's npmCommand, so Pi installs a package with our npm, its config and cache in the prefix", async () => {
    const r = await runCommand(launcherIn(home), ["install", "npm:gentle-pi@4.0.0"], { env: homeEnv(home), cwd: home });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain("Installed npm:gentle-pi@4.0.0");
    const agent = join(home, ".gentle-shell", "agent");
    const settings = JSON.parse(await fs.readFile(join(agent, "settings.json"), "utf8"));
    expect(settings.npmCommand.slice(0, 2)).toEqual([
      join(home, ".gentle-shell", "runtime", "node-24.21.0", "bin", "node"),
      join(home, ".gentle-shell", "runtime", "node-24.21.0", "gentle-shell", "npm"),
    ]);
    expect(settings.defaultProvider).toBeTruthy();
    const pkg = JSON.parse(await fs.readFile(join(agent, "npm", "node_modules", "gentle-pi", "package.json"), "utf8"));
    expect(pkg.version).toBe("4.0.0");
    expect((await fs.readdir(join(home, ".gentle-shell", "npm", "cache"))).length).toBeGreaterThan(0);
    await expect(fs.stat(join(home, ".npm"))).rejects.toThrow();
  });

  it("lays out the prefix with the spec's modes", async () => {
    const p = join(home, ".gentle-shell");
    expect(await mode(p)).toBe(0o700);
    expect(await mode(join(p, "agent"))).toBe(0o700);
    expect(await fs.readlink(join(p, "current"))).toBe(`versions/${latest.id}`);
    expect((await fs.readFile(join(p, "versions", latest.id, ".gentle-shell-version"), "utf8")).trim()).toBe(latest.id);
    expect((await fs.readFile(join(p, "versions.history"), "utf8")).trim()).toBe(latest.id);
    expect(await fs.readFile(join(p, "runtime", "node-24.21.0", ".gentle-shell-runtime"), "utf8")).toMatch(/^node 24\.21\.0 /);
    expect(await fs.readFile(join(p, "runtime", "pnpm-11.1.1", ".gentle-shell-runtime"), "utf8")).toMatch(/^pnpm 11\.1\.1 /);
    expect(await mode(join(p, "bin", "gentle-shell"))).toBe(0o755);
    expect(await mode(join(p, "bin", "engram-guard"))).toBe(0o755);
    expect(await mode(join(p, "pnpm", "config", "npmrc"))).toBe(0o600);
    expect(await mode(join(p, "path-entry.json"))).toBe(0o600);
    expect(await fs.readFile(join(p, "runtime", "node-24.21.0", "gentle-shell", "package.json"), "utf8")).toBe('{"type":"commonjs"}\n');
    // Our runtimes hold regular files and folders only.
    const files = await fs.readdir(join(p, "runtime"), { recursive: true });
    for (const rel of files) expect((await fs.lstat(join(p, "runtime", String(rel)))).isSymbolicLink(), String(rel)).toBe(false);
    await expect(fs.stat(join(p, "tmp"))).rejects.toThrow();
  });

  it("copies only the registry and auth keys, verbatim, into pnpm/config/npmrc", async () => {
    expect(await fs.readFile(join(home, ".gentle-shell", "pnpm", "config", "npmrc"), "utf8")).toBe(
      `registry=${f.registryUrl}\n//127.0.0.1/:_authToken=\${GSS_TEST_TOKEN}\n`,
    );
  });

  it("leaves the user's ~/.npmrc byte for byte", async () => {
    expect(await fs.readFile(join(home, ".npmrc"), "utf8")).toBe(
      `registry=${f.registryUrl}\nprefix=/should/not/be/copied\n//127.0.0.1/:_authToken=\${GSS_TEST_TOKEN}\n`,
    );
  });

  it("runs again without reinstalling anything and adds no second PATH line", async () => {
    const again = await runInstall(f, home, [], { npmrc, env: { GSS_TEST_TOKEN: "x" } });
    expect(again.code).toBe(0);
    expect(again.stdout).toContain("Node 24.21.0 reused, pnpm 11.1.1 reused");
    expect(again.stdout).toContain(`reused in versions/${latest.id}`);
    const bashrc = await fs.readFile(join(home, ".bashrc"), "utf8");
    expect(bashrc.match(/# gentle-shell bundled install/g)).toHaveLength(1);
  });

  it("puts gentle-shell on PATH for a new bash", async () => {
    const r = await runCommand("bash", ["-i", "-c", "gentle-shell --version"], { env: homeEnv(home, { PATH: "/usr/bin:/bin", TERM: "dumb" }), cwd: home });
    expect(r.stdout.split("\n")[0]).toBe(`gentle-shell ${latest.shell}`);
  });
});

describe("install --dry-run", () => {
  it("prints the plan and changes nothing", async () => {
    const home = scratchHomePath();
    const r = await runInstall(f, home, ["--dry-run"]);
    // 4: nothing was changed (src/core/errors.ts EXIT.unchanged).
    expect(r.code).toBe(4);
    expect(r.stdout).toContain("Dry run: nothing was changed.");
    expect(r.stdout).toMatch(/claim[\s\S]*npm-settings[\s\S]*runtime[\s\S]*version[\s\S]*activate[\s\S]*launcher[\s\S]*verify-launcher[\s\S]*path[\s\S]*setup/);
    expect(r.stdout).toContain("  - setup: run gentle-shell setup: Gentle AI for Pi");
    expect((await fs.readdir(home)).sort()).toEqual([".npmrc"]);
  });

  it("with --no-setup, shows the setup step as skipped", async () => {
    const home = scratchHomePath();
    const r = await runInstall(f, home, ["--dry-run", "--no-setup"]);
    expect(r.code).toBe(4);
    expect(r.stdout).toContain("  - setup: skipped (--no-setup); the first interactive gentle-shell runs gentle-shell setup once");
    expect((await fs.readdir(home)).sort()).toEqual([".npmrc"]);
  });
});

describe("under a umask of 002", () => {
  it("leaves nothing group- or other-writable in the prefix: our own writes and pnpm's", async () => {
    const home = scratchHomePath();
    const install = await prepareInstall(f, home, ["--no-setup"]);
    const r = await runCommand("sh", ["-c", 'umask 002 && exec "$0" "$@"', install.command, ...install.args], { env: install.env, cwd: install.cwd });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const prefix = join(home, ".gentle-shell");
    // Thousands of entries under versions/ and pnpm/store: not one is writable by the group or others.
    const found = await runCommand("find", [prefix, "!", "-type", "l", "-perm", "/022", "-print"], { cwd: home });
    expect(found.code).toBe(0);
    expect(found.stdout.split("\n").filter(Boolean)).toEqual([]);
    const count = await runCommand("sh", ["-c", 'find "$0" | wc -l', join(prefix, "versions")], { cwd: home });
    expect(Number(count.stdout.trim())).toBeGreaterThan(1000);
  });
});

describe("a --source with credentials", () => {
  it("is refused before the plan is printed, and the secret is never shown", async () => {
    const home = scratchHomePath();
    await writeNpmrc(home, [registryLine(f.registryUrl)]);
    for (const command of ["install", "migrate"]) {
      const r = await runCommand(f.binary!, [command, "--dry-run", "--source", "https://me:s3cret-pass@127.0.0.1:9/mirror"], { env: homeEnv(home), cwd: home });
      expect(r.code).toBe(2);
      expect(r.stdout).toBe("");
      expect(r.stderr.trim()).toBe("gentle-shell-setup: a --source URL must not carry credentials; nothing was changed");
    }
    expect((await fs.readdir(home)).sort()).toEqual([".npmrc"]);
  });

  it("an unknown option or a --release that is no version is refused the same way, before the plan", async () => {
    const home = scratchHomePath();
    await writeNpmrc(home, [registryLine(f.registryUrl)]);
    for (const [args, message] of [
      [["install", "--frobnicate"], "unknown option --frobnicate for gentle-shell-setup install; see gentle-shell-setup install --help"],
      [["install", "--release", "banana", "--dry-run"], '--release takes an exact Gentle Shell version such as 4.1.0, or latest; not "banana"'],
      [["migrate", "now"], 'unexpected argument "now" for gentle-shell-setup migrate; see gentle-shell-setup migrate --help'],
    ] as const) {
      const r = await runCommand(f.binary!, [...args], { env: homeEnv(home), cwd: home });
      expect(r.code).toBe(2);
      expect(r.stdout).toBe("");
      expect(r.stderr.trim()).toBe(`gentle-shell-setup: ${message}`);
    }
    expect((await fs.readdir(home)).sort()).toEqual([".npmrc"]);
  });
});

describe("bad input loses nothing", () => {
  it("refuses a tampered Node archive, names it, and publishes nothing", async () => {
    const scope = await mirrorClient(f.mirrorUrl).scope();
    await scope.setFault(f.pins.node.archives["linux-x64"]!.path, { kind: "flip", offset: 1000 });
    const home = scratchHomePath();
    const r = await runInstall(f, home, [], { source: scope.url });
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/✖ runtime failed: Node 24\.21\.0 \(linux-x64\).*does not match its pinned sha256/);
    expect(r.stdout).toContain("Gentle Shell was not installed: the runtime step failed.");
    const runtime = await fs.readdir(join(home, ".gentle-shell", "runtime"));
    expect(runtime).toEqual([]);
    await expect(fs.lstat(join(home, ".gentle-shell", "current"))).rejects.toThrow();
    await expect(fs.lstat(join(home, ".gentle-shell", "bin"))).rejects.toThrow();
  });

  it("never replaces a foreign, unmarked runtime/node-24.21.0", async () => {
    const home = scratchHomePath();
    const foreign = join(home, ".gentle-shell", "runtime", "node-24.21.0");
    await fs.mkdir(join(foreign, "bin"), { recursive: true });
    await fs.writeFile(join(foreign, "bin", "node"), "mine\n");
    const r = await runInstall(f, home);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/✖ runtime failed: runtime\/node-24\.21\.0 exists but carries no \.gentle-shell-runtime marker/);
    expect(await fs.readdir(foreign)).toEqual(["bin"]);
    expect(await fs.readFile(join(foreign, "bin", "node"), "utf8")).toBe("mine\n");
  });

  it("stops with a clear message when the release has no distribution assets", async () => {
    const home = scratchHomePath();
    const r = await runInstall(f, home, ["--release", "9.9.9"]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("✖ runtime failed: Gentle Shell 9.9.9 has no published release at the mirror");
    await expect(fs.lstat(join(home, ".gentle-shell", "versions", "9.9.9-1.6.0"))).rejects.toThrow();
  });
});

describe("the installer's own environment cannot be steered", () => {
  it("ignores NODE_OPTIONS, npm_config_* and pnpm_config_*, and works in a HOME with a space, a quote and a non-ASCII letter", async () => {
    const home = scratchHomePath({ name: "Zoë's home" });
    const r = await runInstall(f, home, [], {
      env: {
        NODE_OPTIONS: "--require /nonexistent",
        npm_config_registry: "http://127.0.0.1:9/",
        pnpm_config_registry: "http://127.0.0.1:9/",
        pnpm_config_minimum_release_age: "5256000",
        npm_config_ignore_scripts: "true",
      },
    });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const v = await runCommand(launcherIn(home), ["--version"], { env: homeEnv(home, { NODE_OPTIONS: "--require /nonexistent" }) });
    expect(v.stdout.split("\n")[0]).toBe(`gentle-shell ${latest.shell}`);
    // gentle-pi's build script ran (only its build is allowed), so gentle-ai exists.
    const pkg = join(home, ".gentle-shell", "versions", latest.id, "node_modules", "gentle-pi");
    await expect(fs.access(join(pkg, "bin", "gentle-ai"))).resolves.toBeUndefined();
  });
});
