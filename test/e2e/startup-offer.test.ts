/**
 * The startup update offer, in a real terminal: tmux runs the installed
 * launcher of release 4.0.0 while the registry's latest is 4.1.0; keys are
 * typed with send-keys and the screen read with capture-pane.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { existsSync, promises as fs } from "node:fs";
import { createServer, request } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "pathe";
import { fixtures } from "../support/context";
import { homeEnv } from "../support/fixtures";
import { inNoexecMount, requires } from "../support/capabilities";
import { GENTLE_PI_MARKER } from "../support/gentle-pi";
import { classifyPiScreen } from "../support/screen";
import { installed } from "../support/installed";
import { launcherIn, MEMORY_OFF } from "../support/launch";
import { offerOn } from "../support/offer";
import { Terminal } from "../support/tmux";

const f = fixtures();
const [older, latest] = [f.releases[0]!, f.releases[f.releases.length - 1]!];
const COLUMNS = 120;
const SHELL = "gentle-pi";

/**
 * The registry the offer asks, for the tests that only read the offer: gentle-pi's
 * package document (taken once from the fixture registry) answered at once, and
 * everything else passed through to the fixture registry. The offer waits at most
 * 1.5 s, and the shared fixture registry, busy with other files' installs, can take
 * longer than that to answer; then the offer is rightly not shown.
 */
let shellDocument = "";
let quick = "";
const quickServer = createServer((req, res) => {
  if (req.url === `/${SHELL}`) {
    res.writeHead(200, { "content-type": "application/json" }).end(shellDocument);
    return;
  }
  const upstream = new URL(req.url!, f.registryUrl);
  const forward = request(upstream, { method: req.method, headers: { ...req.headers, host: upstream.host } }, (answer) => {
    res.writeHead(answer.statusCode ?? 502, answer.headers);
    answer.pipe(res);
  });
  forward.on("error", () => res.writeHead(502).end());
  req.pipe(forward);
});
beforeAll(async () => {
  const answer = await fetch(`${f.registryUrl}${SHELL}`, { headers: { accept: "application/json" } });
  expect(answer.status).toBe(200);
  shellDocument = await answer.text();
  await new Promise<void>((resolve) => quickServer.listen(0, "127.0.0.1", resolve));
  quick = `http://127.0.0.1:${(quickServer.address() as AddressInfo).port}/`;
});
afterAll(() => new Promise<void>((resolve) => quickServer.close(() => resolve())));

/** The installed launcher asks the quick registry from now on (its prefix npmrc names it). */
async function askQuickRegistry(home: string) {
  const npmrc = join(home, ".gentle-shell", "pnpm", "config", "npmrc");
  const text = await fs.readFile(npmrc, "utf8");
  expect(text).toContain(`registry=${f.registryUrl}`);
  await fs.writeFile(npmrc, text.replace(`registry=${f.registryUrl}`, `registry=${quick}`));
}

async function installedOlder(options: { quickRegistry?: boolean } = { quickRegistry: true }) {
  // A copy of the run's shared install of the older release (support/installed.ts), Pi answering from the stub model.
  const { home } = await installed(f, { release: older.shell, stubModel: true });
  if (options.quickRegistry) await askQuickRegistry(home);
  return home;
}

/** The launcher in a real terminal, kept after it exits so its last lines can be read. */
function openTerminal(home: string, command: string[]): Promise<Terminal> {
  // Memory off by the user's policy: after "update now" the new version's Engram core is published, and the
  // relaunched Pi would otherwise start the shared server on this machine's default endpoint (127.0.0.1:7437).
  const env = homeEnv(home, { TERM: "xterm-256color", PATH: "/usr/bin:/bin", ...MEMORY_OFF });
  return Terminal.open({ command, cwd: home, env, columns: COLUMNS, rows: 40, keepOnExit: true });
}

/**
 * Choose Update now: "1", seen selected, then Enter. The panel reads a key per chunk of input, so
 * the two sent at once (a loaded machine reads them in one) would be one chunk it ignores.
 */
async function updateNow(t: Terminal): Promise<void> {
  await t.keys("1");
  await t.waitFor((s) => s.includes("❯ 1. Update now"), "the first row selected");
  await t.keys("Enter");
}

/** At the offer, choose Skip this version ("3", seen selected, then Enter), wait for Pi's editor and close the terminal. */
async function skipThisVersion(t: Terminal): Promise<void> {
  await offerOn(t, "the offer", { offered, piOpen });
  await t.keys("3");
  await t.waitFor((s) => s.includes("❯ 3. Skip this version"), "the third row selected");
  await t.keys("Enter");
  await t.waitFor(piOpen, "Pi's editor");
  await t.close();
}

const offered = (s: string) => s.includes(`Gentle Shell ${latest.shell} is available (you have ${older.shell}).`);
/** Pi's idle editor, by the detection rules (support/screen.ts). */
const piOpen = (s: string) => classifyPiScreen(s, COLUMNS) === "idle" && !offered(s);

describe.concurrent("the startup update offer", () => {
  it("offers the newer release; Enter (not now) opens Pi without saving anything", async () => {
    const home = await installedOlder();
    const gs = launcherIn(home);
    const t = await openTerminal(home, [gs]);
    const screen = await offerOn(t, "the offer", { offered, piOpen });
    expect(screen).toContain(`releases/tag/v${latest.shell}`);
    expect(screen).toContain("❯ 2. Not now");
    await t.keys("Enter");
    await t.waitFor(piOpen, "Pi's editor");
    await t.close();
    expect(existsSync(join(home, ".gentle-shell", "config", "config.json"))).toBe(false);
    expect(await fs.readlink(join(home, ".gentle-shell", "current"))).toBe(`versions/${older.id}`);
  });

  it("skip this version stores only that version, and the next start does not ask", async () => {
    const home = await installedOlder();
    const gs = launcherIn(home);
    await fs.mkdir(join(home, ".gentle-shell", "config"), { recursive: true });
    await fs.writeFile(join(home, ".gentle-shell", "config", "config.json"), '{"keep":"me"}\n');
    const t = await openTerminal(home, [gs]);
    await skipThisVersion(t);
    expect(JSON.parse(await fs.readFile(join(home, ".gentle-shell", "config", "config.json"), "utf8"))).toEqual({
      keep: "me",
      skippedStartupRelease: latest.shell,
    });
    const again = await openTerminal(home, [gs]);
    await again.waitFor(piOpen, "Pi's editor without an offer");
    expect(offered(await again.screen())).toBe(false);
    await again.close();
  });

  it("skip this version on an install that has no config/ yet creates it (0700) and the file (0600)", async () => {
    const home = await installedOlder();
    const config = join(home, ".gentle-shell", "config");
    // An install without --source writes no config/ (this one remembered its mirror there).
    await fs.rm(config, { recursive: true, force: true });
    const gs = launcherIn(home);
    const t = await openTerminal(home, [gs]);
    await skipThisVersion(t);
    expect(JSON.parse(await fs.readFile(join(config, "config.json"), "utf8"))).toEqual({ skippedStartupRelease: latest.shell });
    expect((await fs.stat(config)).mode & 0o777).toBe(0o700);
    expect((await fs.stat(join(config, "config.json"))).mode & 0o777).toBe(0o600);
  });

  it("Ctrl+C cancels opening with exit 130", async () => {
    const home = await installedOlder();
    // A shell around the launcher reports its exit status on the screen.
    const gs = launcherIn(home);
    const t = await openTerminal(home, ["sh", "-c", '"$0"; echo "launcher exited with $?"', gs]);
    await offerOn(t, "the offer", { offered, piOpen });
    await t.keys("C-c");
    const screen = await t.waitFor((s) => s.includes("launcher exited with"), "the launcher to exit");
    expect(screen).toContain("gentle-shell: cancelled.");
    expect(screen).toContain("launcher exited with 130");
    await t.close();
  });

  it("update now upgrades, then reopens the new Shell with the same arguments and no second offer", async () => {
    // The upgrade installs from the fixture registry itself.
    const home = await installedOlder({ quickRegistry: false });
    const agent = join(home, ".gentle-shell", "agent");
    const t = await openTerminal(home, [launcherIn(home), "--continue"]);
    await offerOn(t, "the offer", { offered, piOpen });
    await updateNow(t);
    await t.waitFor((s) => s.includes(`Gentle Shell ${latest.shell} with Pi ${latest.pi} is now current`), "the upgrade");
    await t.waitFor(piOpen, "Pi's editor of the new version");
    const marker = JSON.parse(await fs.readFile(join(agent, GENTLE_PI_MARKER), "utf8"));
    expect(marker.version).toBe(latest.shell);
    expect(marker.env).not.toHaveProperty("GENTLE_SHELL_STARTUP_HANDOFF");
    await t.close();
    expect(await fs.readlink(join(home, ".gentle-shell", "current"))).toBe(`versions/${latest.id}`);
  });

  it("update now that fails shows its error and opens the current Shell", async () => {
    const home = await installedOlder();
    const prefix = join(home, ".gentle-shell");
    // A folder that is not ours where the new version goes: the upgrade stops before anything switches.
    const foreign = join(prefix, "versions", latest.id);
    await fs.mkdir(foreign);
    await fs.writeFile(join(foreign, "mine.txt"), "mine\n");
    const t = await openTerminal(home, [join(prefix, "bin", "gentle-shell")]);
    await offerOn(t, "the offer", { offered, piOpen });
    await updateNow(t);
    const failed = await t.waitFor((s) => s.includes("the update failed; opening the current Gentle Shell."), "the failed update");
    expect(failed).toContain(`gentle-shell: versions/${latest.id} exists but`);
    await t.waitFor(piOpen, "Pi's editor of the current version");
    // The Pi that opened is the current version's.
    const marker = JSON.parse(await fs.readFile(join(prefix, "agent", GENTLE_PI_MARKER), "utf8"));
    expect(marker.version).toBe(older.shell);
    await t.close();
    expect(await fs.readlink(join(prefix, "current"))).toBe(`versions/${older.id}`);
    expect(await fs.readdir(foreign)).toEqual(["mine.txt"]);
  });

  it("update now whose relaunch fails says so and exits 1, and opens no older Shell", async (ctx) => {
    requires(ctx, "noexec-mounts");
    // The upgrade installs from the fixture registry itself.
    const home = await installedOlder({ quickRegistry: false });
    const prefix = join(home, ".gentle-shell");
    const bin = join(prefix, "bin");
    // bin/ is mounted noexec in the terminal's own mount namespace: the upgrade writes the new launcher there, and
    // the relaunch cannot start it. This launch starts from a copy of the launcher outside bin/.
    const marker = join(prefix, "agent", GENTLE_PI_MARKER);
    await fs.rm(marker, { force: true });
    const copy = join(home, "gentle-shell-copy");
    await fs.copyFile(join(bin, "gentle-shell"), copy);
    await fs.chmod(copy, 0o755);
    const t = await openTerminal(home, inNoexecMount(bin, ["sh", "-c", '"$0"; echo "launcher exited with $?"', copy]));
    await offerOn(t, "the offer", { offered, piOpen });
    await updateNow(t);
    await t.waitFor((s) => s.includes(`Gentle Shell ${latest.shell} with Pi ${latest.pi} is now current`), "the upgrade");
    const screen = await t.waitFor((s) => s.includes("launcher exited with"), "the launcher to exit");
    expect(screen).toContain(
      `gentle-shell: the update succeeded but reopening the new Gentle Shell failed (${join(bin, "gentle-shell")} cannot be started (EACCES)); run gentle-shell again.`,
    );
    expect(screen).toContain("launcher exited with 1");
    expect(piOpen(screen)).toBe(false);
    await t.close();
    expect(await fs.readlink(join(prefix, "current"))).toBe(`versions/${latest.id}`);
    // No Pi ran after the offer, the older one included.
    expect(existsSync(marker)).toBe(false);
  });
});
