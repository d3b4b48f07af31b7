/**
 * The update policy (issue 41, item 2) through the installed launcher of a
 * test build, whose machine-wide policy file lives under GSS_TEST_POLICY_ROOT
 * (a release build reads /etc/gentle-shell/policy.json and no variable moves
 * it). `off` from that file beats `on` from config.json and from
 * GENTLE_SHELL_UPDATES for every update path: upgrade, upgrade --to, update
 * and the startup offer, which then never asks the registry; --rollback still
 * runs. `notify` makes the offer one line on stderr. Under CI the offer never
 * checks. On Linux as root, the file is root's and another user (setpriv)
 * can neither override it nor rewrite it. With "enforce": false (issue 47)
 * the file's values are defaults, and the user's GENTLE_SHELL_UPDATES wins.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { existsSync, promises as fs } from "node:fs";
import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "pathe";
import { fixtures } from "../support/context";
import { homeEnv } from "../support/fixtures";
import { requires } from "../support/capabilities";
import { installed, runInstall } from "../support/installed";
import { policyRoot } from "../support/policy-root";
import { runCommand } from "../support/proc";
import { sharedTree } from "../support/shared-install";
import { classifyPiScreen } from "../support/screen";
import { writeStubModelConfig } from "../support/stub-model";
import { Terminal } from "../support/tmux";

const f = fixtures();
const [older, latest] = [f.releases[0]!, f.releases[f.releases.length - 1]!];
const COLUMNS = 120;

async function userSaysOn(home: string) {
  await fs.mkdir(join(home, ".gentle-shell", "config"), { recursive: true });
  await fs.writeFile(join(home, ".gentle-shell", "config", "config.json"), '{"updates":"on"}\n');
}

function gs(home: string, args: string[], extra: NodeJS.ProcessEnv = {}) {
  return runCommand(join(home, ".gentle-shell", "bin", "gentle-shell"), args, { env: homeEnv(home, extra), cwd: home });
}

const current = (home: string) => fs.readlink(join(home, ".gentle-shell", "current"));

/** The older release upgraded to the latest (made once per run): --rollback has a version to go back to. */
async function upgradedInstall(): Promise<string> {
  const copy = await sharedTree(f, `upgraded-${older.id}-${latest.id}`, async (root) => {
    const home = join(root, "home");
    const install = await runInstall(f, home, ["--release", older.shell]);
    return install.code === 0 ? gs(home, ["upgrade"]) : install;
  });
  return join(copy.root, "home");
}

describe.concurrent("the update policy's off, from the machine-wide file", () => {
  it("beats on from config.json and GENTLE_SHELL_UPDATES for upgrade, upgrade --to and update; --rollback still runs", async () => {
    const home = await upgradedInstall();
    expect(await current(home)).toBe(`versions/${latest.id}`);
    await userSaysOn(home);
    const { root, file } = await policyRoot('{ "updates": "off" }\n');
    const env = { GSS_TEST_POLICY_ROOT: root, GENTLE_SHELL_UPDATES: "on" };
    const said = (command: string) => `gentle-shell: ${command} was not run: updates are off by the machine-wide policy ${file}; nothing was changed.\n`;
    for (const [args, command] of [
      [["upgrade"], "gentle-shell upgrade"],
      [["upgrade", "--to", older.shell, "--yes"], `gentle-shell upgrade --to ${older.shell}`],
      [["update"], "gentle-shell update"],
      [["update", "--all"], "gentle-shell update"],
    ] as const) {
      const r = await gs(home, [...args], env);
      expect(r.stderr, args.join(" ")).toBe(said(command));
      expect(r.stdout).toBe("");
      expect(r.code).toBe(4);
    }
    expect(await current(home)).toBe(`versions/${latest.id}`);
    // Rolling back installs nothing: the policy allows it.
    const back = await gs(home, ["upgrade", "--rollback"], env);
    expect(back.code, back.stdout + back.stderr).toBe(0);
    expect(await current(home)).toBe(`versions/${older.id}`);
    // Without the file, the user's on holds again: an upgrade finds the newer release installed and switches.
    await fs.rm(file);
    const up = await gs(home, ["upgrade"], env);
    expect(up.code, up.stdout + up.stderr).toBe(0);
    expect(await current(home)).toBe(`versions/${latest.id}`);
  });

  it("counts a machine-wide file that cannot be read as off, and says why in one sentence", async () => {
    const { home } = await installed(f, { release: older.shell });
    await userSaysOn(home);
    const { root, file } = await policyRoot('{ "updates": off }\n');
    const r = await gs(home, ["upgrade"], { GSS_TEST_POLICY_ROOT: root, GENTLE_SHELL_UPDATES: "on" });
    expect(r.stderr).toBe(
      `gentle-shell: gentle-shell upgrade was not run: the machine-wide policy ${file} cannot be read (it is not valid JSON), so updates count as off; nothing was changed.\n`,
    );
    expect(r.code).toBe(4);
    expect(await current(home)).toBe(`versions/${older.id}`);
  });

  it("is root's: another user can neither override it nor rewrite it", async (ctx) => {
    requires(ctx, "owners");
    if (!existsSync("/usr/bin/setpriv")) ctx.skip(true, "needs setpriv (util-linux) to run as another user, and this machine lacks it");
    // fresh: chown -R on a shared copy would change the owner of the runtime files it hard-links with every other copy.
    const { root: scratch, home } = await installed(f, { release: older.shell, fresh: true });
    await userSaysOn(home);
    const { root, file } = await policyRoot('{ "updates": "off" }\n');
    expect((await fs.stat(file)).uid).toBe(0);
    // The install becomes nobody's, as a user's own install is.
    await fs.chmod(scratch, 0o755);
    await runCommand("chown", ["-R", "65534:65534", home]);
    const asNobody = (command: string[], extra: NodeJS.ProcessEnv) =>
      runCommand("/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", "--", ...command], { env: homeEnv(home, extra), cwd: home });
    const r = await asNobody([join(home, ".gentle-shell", "bin", "gentle-shell"), "upgrade"], { GSS_TEST_POLICY_ROOT: root, GENTLE_SHELL_UPDATES: "on" });
    expect(r.stderr).toBe(`gentle-shell: gentle-shell upgrade was not run: updates are off by the machine-wide policy ${file}; nothing was changed.\n`);
    expect(r.code).toBe(4);
    const write = await asNobody(["/bin/sh", "-c", `printf '{"updates":"on"}' > "$0"`, file], {});
    expect(write.code).not.toBe(0);
    expect(write.stderr).toMatch(/Permission denied/);
    expect(await fs.readFile(file, "utf8")).toBe('{ "updates": "off" }\n');
    expect(await current(home)).toBe(`versions/${older.id}`);
  });
});

describe.concurrent("the machine-wide file's defaults tier", () => {
  it('with "enforce": false, its off holds until the user says otherwise, and GENTLE_SHELL_UPDATES=on wins', async () => {
    const { home } = await installed(f, { release: older.shell });
    const { root, file } = await policyRoot('{ "enforce": false, "updates": "off" }\n');
    const refused = await gs(home, ["upgrade"], { GSS_TEST_POLICY_ROOT: root });
    expect(refused.stderr).toBe(`gentle-shell: gentle-shell upgrade was not run: updates are off by the machine-wide defaults ${file}; nothing was changed.\n`);
    expect(refused.code).toBe(4);
    expect(await current(home)).toBe(`versions/${older.id}`);
    const up = await gs(home, ["upgrade"], { GSS_TEST_POLICY_ROOT: root, GENTLE_SHELL_UPDATES: "on" });
    expect(up.code, up.stdout + up.stderr).toBe(0);
    expect(await current(home)).toBe(`versions/${latest.id}`);
  });
});

/**
 * A registry that counts the offer's questions: gentle-pi's package document (taken once from
 * the fixture registry) answered at once, everything else passed on to the fixture registry.
 */
let document = "";
const servers: Server[] = [];
beforeAll(async () => {
  const answer = await fetch(`${f.registryUrl}gentle-pi`, { headers: { accept: "application/json" } });
  expect(answer.status).toBe(200);
  document = await answer.text();
});
afterAll(() => Promise.all(servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve())))));

async function countingRegistry(): Promise<{ url: string; asked: () => number }> {
  let asked = 0;
  const server = createServer((req, res) => {
    if (req.url === "/gentle-pi") {
      asked++;
      res.writeHead(200, { "content-type": "application/json" }).end(document);
      return;
    }
    const upstream = new URL(req.url!, f.registryUrl);
    const forward = request(upstream, { method: req.method, headers: { ...req.headers, host: upstream.host } }, (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    });
    forward.on("error", () => res.writeHead(502).end());
    req.pipe(forward);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, asked: () => asked };
}

/** The older release, asking `registry` from its prefix npmrc, with the stub model for Pi. */
async function olderAsking(registry: string): Promise<string> {
  const { home } = await installed(f, { release: older.shell });
  await writeStubModelConfig(join(home, ".gentle-shell", "agent"), `${f.modelUrl}/v1`);
  const npmrc = join(home, ".gentle-shell", "pnpm", "config", "npmrc");
  await fs.writeFile(npmrc, (await fs.readFile(npmrc, "utf8")).replace(`registry=${f.registryUrl}`, `registry=${registry}`));
  return home;
}

/** The launcher in a real terminal (stdin and stdout), its stderr into `err`, until Pi's editor shows; then closed. */
async function launchUntilPi(home: string, err: string, extra: NodeJS.ProcessEnv): Promise<string> {
  const gsPath = join(home, ".gentle-shell", "bin", "gentle-shell");
  const env = homeEnv(home, { TERM: "xterm-256color", PATH: "/usr/bin:/bin", ENGRAM_STARTUP_POLICY: "disabled", ...extra });
  const t = await Terminal.open({ command: ["/bin/sh", "-c", 'exec "$0" 2>"$1"', gsPath, err], cwd: home, env, columns: COLUMNS, rows: 40 });
  try {
    return await t.waitFor((s) => classifyPiScreen(s, COLUMNS) === "idle", "Pi's editor");
  } finally {
    await t.close();
  }
}

const offered = (s: string) => s.includes(`Gentle Shell ${latest.shell} is available`);

describe.concurrent("the startup offer under the update policy", () => {
  it("never asks the registry when the machine-wide file says off, whatever the user says", async () => {
    const registry = await countingRegistry();
    const home = await olderAsking(registry.url);
    await userSaysOn(home);
    const { root } = await policyRoot('{"updates":"off"}\n');
    const err = join(home, "stderr.txt");
    const screen = await launchUntilPi(home, err, { GSS_TEST_POLICY_ROOT: root, GENTLE_SHELL_UPDATES: "on" });
    expect(offered(screen)).toBe(false);
    expect(registry.asked()).toBe(0);
    expect(await fs.readFile(err, "utf8")).not.toContain("available");
  });

  it("says notify's one line on stderr, shows no panel and installs nothing", async () => {
    const registry = await countingRegistry();
    const home = await olderAsking(registry.url);
    const err = join(home, "stderr.txt");
    const screen = await launchUntilPi(home, err, { GENTLE_SHELL_UPDATES: "notify" });
    expect(offered(screen)).toBe(false);
    expect(registry.asked()).toBe(1);
    expect((await fs.readFile(err, "utf8")).split("\n")).toContain(
      `gentle-shell: Gentle Shell ${latest.shell} is available (you have ${older.shell}); run gentle-shell upgrade to install it.`,
    );
    expect(await current(home)).toBe(`versions/${older.id}`);
  });

  it("never asks the registry under CI, on a terminal too", async () => {
    const registry = await countingRegistry();
    const home = await olderAsking(registry.url);
    const err = join(home, "stderr.txt");
    await launchUntilPi(home, err, { CI: "true" });
    expect(registry.asked()).toBe(0);
  });

  it("waits for minimumReleaseAge: the release published today is not offered", async () => {
    const registry = await countingRegistry();
    const home = await olderAsking(registry.url);
    await fs.mkdir(join(home, ".gentle-shell", "config"), { recursive: true });
    await fs.writeFile(join(home, ".gentle-shell", "config", "config.json"), '{"minimumReleaseAge":"2d"}\n');
    const err = join(home, "stderr.txt");
    const screen = await launchUntilPi(home, err, {});
    expect(registry.asked()).toBe(1);
    expect(offered(screen)).toBe(false);
    expect(await fs.readFile(err, "utf8")).not.toContain("available");
  });
});
