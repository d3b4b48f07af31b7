/**
 * npm's global config file, <prefix>/npm/npmrc (spec: layout table, "The
 * global config file is never written"): npm is told about it
 * (--globalconfig, npm_config_globalconfig), and nothing of ours writes it.
 * The install's npm-settings step (userRegistrySettings, writeNpmrcAuth) and
 * its registry question to npm (configuredRegistry, a real npm run) on a
 * scratch prefix: absent before, absent after; a file someone put there
 * stays byte for byte, with its mtime.
 */
import { existsSync, mkdtempSync, promises as fs, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "pathe";
import { afterEach, describe, expect, it } from "vitest";
import { prefixLayout } from "../../src/core/layout";
import { configuredRegistry } from "../../src/install/npm-registry";
import { userRegistrySettings, writeNpmrcAuth } from "../../src/install/npm-settings";
import { productionPins } from "../../src/pins/production";
import { requires } from "../support/capabilities";

const roots: string[] = [];
afterEach(async () => {
  for (const root of roots.splice(0)) await fs.rm(root, { recursive: true, force: true });
});

/** This machine's npm, the one beside the running Node. */
const systemNpm = join(dirname(dirname(process.execPath)), "lib", "node_modules", "npm");

async function scratch() {
  const root = mkdtempSync(join(tmpdir(), "gss-npm-globalconfig-"));
  roots.push(root);
  const layout = prefixLayout({ home: root, platform: "linux", pins: productionPins });
  await fs.mkdir(join(layout.nodeDir, "lib", "node_modules"), { recursive: true });
  await fs.symlink(systemNpm, join(layout.nodeDir, "lib", "node_modules", "npm"));
  await fs.mkdir(dirname(layout.node), { recursive: true });
  await fs.symlink(process.execPath, layout.node);
  // The user's settings: a token and a TLS key, no registry, so npm itself is asked for one.
  await fs.writeFile(join(root, ".npmrc"), "//r.test/:_authToken=abc\nstrict-ssl=true\nprefix=/usr/local\n");
  return { layout, env: { HOME: root, PATH: process.env.PATH ?? "/usr/bin:/bin" } };
}

/** The npm-settings step and the registry question, as an install runs them. */
async function npmSteps(layout: ReturnType<typeof prefixLayout>, env: Record<string, string>) {
  const user = await userRegistrySettings(env, layout.home);
  await writeNpmrcAuth(layout, user.npmrc);
  return configuredRegistry(layout, user.npmrc, env);
}

describe("npm's global config file", () => {
  it("is not created by the npm-settings step or npm's registry answer", async (ctx) => {
    // Its stand-ins are POSIX programs (sh scripts, a POSIX layout's bin/node).
    requires(ctx, "posix-shell");
    const { layout, env } = await scratch();
    const registry = await npmSteps(layout, env);
    expect(registry).toMatch(/^https?:\/\/.+\/$/);
    // The step did its work (so the check below is about a step that ran).
    expect(readFileSync(layout.pnpm.npmrc, "utf8")).toContain("//r.test/:_authToken=abc");
    expect(existsSync(layout.npm.globalconfig)).toBe(false);
    expect(await fs.readdir(join(layout.prefix, "npm"))).not.toContain("npmrc");
  });

  it("a file already there is left byte for byte, its mtime too", async (ctx) => {
    // Its stand-ins are POSIX programs (sh scripts, a POSIX layout's bin/node).
    requires(ctx, "posix-shell");
    const { layout, env } = await scratch();
    await fs.mkdir(dirname(layout.npm.globalconfig), { recursive: true, mode: 0o700 });
    const theirs = "; someone's global npm settings\nfund=false\n";
    await fs.writeFile(layout.npm.globalconfig, theirs, { mode: 0o600 });
    const past = new Date("2024-01-02T03:04:05Z");
    await fs.utimes(layout.npm.globalconfig, past, past);
    await npmSteps(layout, env);
    expect(readFileSync(layout.npm.globalconfig, "utf8")).toBe(theirs);
    expect(statSync(layout.npm.globalconfig).mtimeMs).toBe(past.getTime());
    expect(statSync(layout.npm.globalconfig).mode & 0o777).toBe(0o600);
  });
});
