/**
 * The engine under the layouts and networks real users have (issue 8):
 * credentials in the registry URL, an agent home linked to the user's own
 * ~/.pi, a persona kept in a dotfiles folder, a mandatory proxy, a project
 * .npmrc in the current directory, a versions.history that is not a
 * file, and an installed Pi that was changed after the install. Each runs
 * the fixture binary's install and the installed launcher.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { registryLine, writeNpmrc } from "../support/npmrc";
import { existsSync, promises as fs } from "node:fs";
import { join } from "pathe";
import { fixtures } from "../support/context";
import { mirrorClient } from "../support/mirror";
import { freePort } from "../support/proc";
import { carriedBy, startProxy, stopProxy } from "../support/proxy";
import { installed } from "../support/installed";
import { gs, versionLines } from "../support/launch";
import { NO_ACTIVE_VERSION, NO_ACTIVE_VERSION_HINT } from "../../src/install/launcher";

const f = fixtures();
const [older, latest] = [f.releases[0]!, f.releases[f.releases.length - 1]!];
const SECRET = "S3CRETPASS";

let proxy: Awaited<ReturnType<typeof startProxy>>;
beforeAll(async () => {
  proxy = await startProxy();
});
afterAll(async () => {
  await stopProxy(proxy);
});

describe.concurrent("the engine under real-world layouts", () => {
  it("a registry with user:password in its URL installs and upgrades, and the password is never printed", async () => {
    const url = new URL(f.registryUrl);
    const registry = `${url.protocol}//alice:${SECRET}@${url.host}${url.pathname}`;
    // --verbose echoes pnpm's own output too.
    const i = await installed(f, { release: older.shell, registry, extra: ["--verbose"] });
    expect(i.output).not.toContain(SECRET);
    const up = await gs(i, ["upgrade"]);
    expect(up.code, up.stdout + up.stderr).toBe(0);
    expect(up.stdout + up.stderr).not.toContain(SECRET);
    expect(await versionLines(i)).toEqual([`gentle-shell ${latest.shell}`, `pi ${latest.pi}`]);
    // A registry that does not answer: the error names it with the credentials masked, in one line.
    const closed = await freePort();
    await fs.writeFile(join(i.prefix, "pnpm", "config", "npmrc"), `registry=http://alice:${SECRET}@127.0.0.1:${closed}/\n`);
    const down = await gs(i, ["upgrade"]);
    expect(down.code).toBe(1);
    expect(down.stdout + down.stderr).not.toContain(SECRET);
    expect(down.stderr).toContain(`gentle-shell: could not reach http://***@127.0.0.1:${closed}/gentle-pi for the gentle-pi release list (ECONNREFUSED)`);
    expect(down.stderr.trim().split("\n")).toHaveLength(1);
  });

  it("never writes Pi's npmCommand into the user's ~/.pi when the agent home is a link to it", async () => {
    const i = await installed(f);
    const userAgent = join(i.home, ".pi", "agent");
    await fs.mkdir(userAgent, { recursive: true });
    await fs.writeFile(join(userAgent, "settings.json"), '{"theme":"dark"}\n');
    await fs.rm(join(i.prefix, "agent"), { recursive: true });
    await fs.symlink(userAgent, join(i.prefix, "agent"));
    const r = await gs(i, ["--help"]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(await fs.readFile(join(userAgent, "settings.json"), "utf8")).toBe('{"theme":"dark"}\n');
    expect(r.stderr).toContain("gentle-shell: Pi's npmCommand was not set: ~/.gentle-shell/agent is a link");
    // Nor Pi's own tools: the user's Pi home gets no bin/ of ours, and nothing is said about it.
    // (Pi itself writes its own files there, such as auth.json.)
    expect((await fs.readdir(userAgent)).filter((e) => e === "bin" || e.startsWith(".gentle-shell") || e.startsWith(".staging"))).toEqual([]);
    expect(r.stderr).not.toContain("not provisioned");
  });

  it("restores a persona kept in a dotfiles folder through its link, and the link stays", async () => {
    const i = await installed(f);
    const dotfiles = join(i.home, "dotfiles");
    await fs.mkdir(dotfiles);
    await fs.writeFile(join(dotfiles, "persona.json"), '{"mine":true}\n', { mode: 0o640 });
    await fs.mkdir(join(i.home, ".pi", "gentle-ai"), { recursive: true });
    const persona = join(i.home, ".pi", "gentle-ai", "persona.json");
    await fs.symlink(join(dotfiles, "persona.json"), persona);
    const r = await gs(i, ["setup"], { GENTLE_AI_FIXTURE_PERSONA: '{"rewritten":true}' });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(await fs.readlink(persona)).toBe(join(dotfiles, "persona.json"));
    expect(await fs.readFile(join(dotfiles, "persona.json"), "utf8")).toBe('{"mine":true}\n');
    expect((await fs.stat(join(dotfiles, "persona.json"))).mode & 0o777).toBe(0o640);
    expect(r.stderr).toContain("restored ~/.pi/gentle-ai/persona.json (through its link to ~/dotfiles/persona.json), which Gentle AI changed");
  });

  it("upgrade goes through HTTP_PROXY: a dead proxy stops it with nothing changed, a live one carries the release", async () => {
    const scope = await mirrorClient(f.mirrorUrl).scope();
    // A copy of the run's shared install, remembering the scope (which serves the mirror's files) as an install from it would.
    const i = await installed(f, { release: older.shell });
    await fs.writeFile(join(i.prefix, "config", "install-source"), `${scope.url}\n`, { mode: 0o600 });
    const deadProxy = `http://127.0.0.1:${await freePort()}`;
    const dead = await gs(i, ["upgrade"], { HTTP_PROXY: deadProxy, HTTPS_PROXY: deadProxy, NO_PROXY: "" });
    expect(dead.code).toBe(1);
    // Said before anything else is asked: the remembered mirror, and the proxy the request went through.
    expect(dead.stderr).toBe(
      `gentle-shell: the remembered install source mirror ${scope.url} does not answer through the proxy ${deadProxy} (ECONNREFUSED); nothing was changed\n`,
    );
    expect(await versionLines(i)).toEqual([`gentle-shell ${older.shell}`, `pi ${older.pi}`]);
    const before = proxy.log.lines.length;
    const up = await gs(i, ["upgrade"], { HTTP_PROXY: proxy.url, NO_PROXY: "" });
    expect(up.code, up.stdout + up.stderr).toBe(0);
    const carried = { lines: proxy.log.lines.slice(before) };
    expect(carriedBy(carried, `${scope.url}/releases/v${latest.shell}/gentle-shell-distribution.json`).length).toBeGreaterThan(0);
    expect(carriedBy(carried, `${f.registryUrl}gentle-pi`).length).toBeGreaterThan(0);
    expect(await versionLines(i)).toEqual([`gentle-shell ${latest.shell}`, `pi ${latest.pi}`]);
  });

  it("a .npmrc in the current directory does not choose the registry upgrade asks", async () => {
    const i = await installed(f);
    // The registry now comes from npm's global config in the prefix, so our npm is asked for it.
    await fs.writeFile(join(i.prefix, "pnpm", "config", "npmrc"), "");
    await fs.mkdir(join(i.prefix, "npm"), { recursive: true });
    await fs.writeFile(join(i.prefix, "npm", "npmrc"), `registry=${f.registryUrl}\n`);
    const project = join(i.root, "project");
    await fs.mkdir(project);
    await writeNpmrc(project, [registryLine("http://127.0.0.1:9/")]);
    await fs.writeFile(join(project, "package.json"), '{"name":"project"}\n');
    const r = await gs(i, ["upgrade"], {}, { cwd: project });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`Gentle Shell ${latest.shell} with Pi ${latest.pi} is already current; nothing was changed.`);
  });

  it("an upgrade that cannot record its activation leaves current, the launcher and the versions as they were", async () => {
    const i = await installed(f, { release: older.shell });
    await fs.rm(join(i.prefix, "versions.history"));
    await fs.mkdir(join(i.prefix, "versions.history"));
    const r = await gs(i, ["upgrade"]);
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toBe(
      "gentle-shell: ~/.gentle-shell/versions.history is not a file made by gentle-shell-setup; current was not switched. Move it away, then run this again.",
    );
    expect(await fs.readlink(join(i.prefix, "current"))).toBe(`versions/${older.id}`);
    expect(await fs.readdir(join(i.prefix, "versions"))).toEqual([older.id]);
    expect(existsSync(join(i.prefix, "versions", latest.id))).toBe(false);
    expect(await versionLines(i)).toEqual([`gentle-shell ${older.shell}`, `pi ${older.pi}`]);
  });

  it("starts only a version current names with its final marker: an unmarked or unfinished folder is no active version", async () => {
    const i = await installed(f, { release: latest.shell });
    const point = async (target: string) => {
      await fs.symlink(target, join(i.prefix, "current.next"));
      await fs.rename(join(i.prefix, "current.next"), join(i.prefix, "current"));
    };
    const noVersion = `${NO_ACTIVE_VERSION}\n${NO_ACTIVE_VERSION_HINT}\n`;
    // A folder without our marker, holding an engine that would leave a trace: the launcher never starts it.
    const unmarked = join(i.prefix, "versions", "0.0.1-0.0.1");
    const trace = join(i.root, "started");
    await fs.mkdir(join(unmarked, ".gentle-shell"), { recursive: true });
    await fs.writeFile(join(unmarked, ".gentle-shell", "engine.cjs"), `require("node:fs").writeFileSync(${JSON.stringify(trace)}, "started");\n`);
    await point("versions/0.0.1-0.0.1");
    for (const args of [["--version"], ["-p", "hi"]]) {
      const r = await gs(i, args);
      expect([r.code, r.stdout, r.stderr], args.join(" ")).toEqual([1, "", noVersion]);
    }
    expect(existsSync(trace)).toBe(false);
    // An unfinished install's folder with the real engine: the engine starts, and says the same.
    const unfinished = join(i.prefix, "versions", "0.0.2-0.0.2");
    const own = join(i.prefix, "versions", latest.id, ".gentle-shell");
    await fs.mkdir(join(unfinished, ".gentle-shell"), { recursive: true });
    for (const name of await fs.readdir(own)) {
      if ((await fs.lstat(join(own, name))).isFile()) await fs.copyFile(join(own, name), join(unfinished, ".gentle-shell", name));
    }
    await fs.writeFile(join(unfinished, ".gentle-shell-version"), "installing 0.0.2-0.0.2 1\n");
    await point("versions/0.0.2-0.0.2");
    const r = await gs(i, ["--version"]);
    expect([r.code, r.stdout, r.stderr]).toEqual([1, "", noVersion]);
    // current naming the installed version again: it runs.
    await point(`versions/${latest.id}`);
    expect(await versionLines(i)).toEqual([`gentle-shell ${latest.shell}`, `pi ${latest.pi}`]);
  });

  it("--version reads the installed Pi's package.json without starting Pi, and refuses a Pi that is not the pin", async () => {
    const i = await installed(f, { release: latest.shell });
    const piRoot = await fs.realpath(join(i.prefix, "versions", latest.id, "node_modules", "@earendil-works", "pi-coding-agent"));
    const pkg = JSON.parse(await fs.readFile(join(piRoot, "package.json"), "utf8")) as { version: string; bin: Record<string, string> };
    // Replaced, not written through: pnpm's files are hard links into its store.
    const replace = async (file: string, text: string) => {
      await fs.rm(file);
      await fs.writeFile(file, text);
    };
    // A Pi that would fail if it were started: --version does not start it...
    await replace(join(piRoot, pkg.bin.pi!), 'process.stderr.write("pi was started\\n"); process.exit(3);\n');
    const fast = await gs(i, ["--version"]);
    expect(fast.stderr).toBe("");
    expect(fast.code).toBe(0);
    expect(fast.stdout).toBe(`gentle-shell ${latest.shell}\npi ${latest.pi}\n`);
    // Without a NODE_COMPILE_CACHE of the user's (this harness sets one), the engine keeps Node's compile
    // cache in the version's own 0700 folder, and leaves its compiled code there.
    const cache = join(i.prefix, "versions", latest.id, ".gentle-shell", "compile-cache");
    expect(await fs.readdir(cache)).toEqual([]);
    const own = await gs(i, ["--version"], { NODE_COMPILE_CACHE: undefined });
    expect(own.stdout).toBe(fast.stdout);
    expect((await fs.lstat(cache)).mode & 0o777).toBe(0o700);
    const [byNode] = await fs.readdir(cache);
    expect(byNode).toMatch(/^v24\.21\.0-/);
    expect(await fs.readdir(join(cache, byNode!))).not.toEqual([]);
    // ...but a launcher check that names the version (GENTLE_SHELL_VERIFY_VERSION, upgrade and update step 5) does.
    const checked = await gs(i, ["--version"], { GENTLE_SHELL_VERIFY_VERSION: latest.id });
    expect(checked.code).toBe(1);
    expect(checked.stdout).toBe("");
    expect(checked.stderr).toBe(`gentle-shell: the pinned Pi ${latest.pi} in versions/${latest.id} reported "pi was started".\n`);
    // An installed Pi whose package.json names another version is refused, as before.
    await replace(join(piRoot, "package.json"), JSON.stringify({ ...pkg, version: "1.0.0" }));
    const other = await gs(i, ["--version"]);
    expect(other.code).toBe(1);
    expect(other.stdout).toBe("");
    expect(other.stderr).toBe(
      `gentle-shell: Gentle Shell ${latest.shell} pins Pi ${latest.pi}, but versions/${latest.id} holds Pi 1.0.0. Run gentle-shell upgrade or the Gentle Shell installer again.\n`,
    );
  });
});
