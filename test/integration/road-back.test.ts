/**
 * The road back from a broken runtime, from the tool a user has (issue 47,
 * item 1): the `curl … | sh` one-liner, run again as a user would, checks
 * every runtime it finds against the record written when it was extracted,
 * and downloads a broken one again (moved aside with one rename, checked
 * against its pin, published by rename). First among them: our Node deleted,
 * the launcher names it and the one-liner, the one-liner rerun, then
 * `gentle-shell --version` works.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { promises as fs } from "node:fs";
import { createHash } from "node:crypto";
import { basename, join } from "pathe";
import { registryLine, writeNpmrc } from "../support/npmrc";
import { fixtures } from "../support/context";
import { homeEnv } from "../support/fixtures";
import { runCommand } from "../support/proc";
import { serveFiles } from "../support/http-util";
import { REPO_ROOT } from "../support/paths";
import { scratchDir } from "../support/scratch";
import { NO_ACTIVE_VERSION_HINT, NODE_MISSING, nodeRepairRerun } from "../../src/install/launcher";
import { checkFileRecord } from "../../src/install/runtime/file-record";
import { RUNTIME_FILES } from "../../src/install/runtime/marker";
import { prefixLayout } from "../../src/core/layout";
import { readCurrent } from "../../src/install/activate";
import { PI_PACKAGE } from "../../src/core/release-project";

const f = fixtures();
const latest = f.releases[f.releases.length - 1]!;
let close: () => Promise<void>;
let base: string;

beforeAll(async () => {
  const dir = scratchDir("gss-road-back-download-");
  const digest = createHash("sha256")
    .update(await fs.readFile(f.binary!))
    .digest("hex");
  await fs.writeFile(join(dir, "SHA256SUMS"), `${digest}  ${basename(f.binary!)}\n`);
  const files = new Map<string, string>([
    ["/dl/SHA256SUMS", join(dir, "SHA256SUMS")],
    [`/dl/${basename(f.binary!)}`, f.binary!],
    ["/dl/install.sh", join(REPO_ROOT, "installers", "install.sh")],
  ]);
  ({ base, close } = await serveFiles(files));
});

afterAll(async () => {
  await close();
});

async function home() {
  const h = join(scratchDir("gss-road-back-"), "home");
  await fs.mkdir(h, { recursive: true });
  await writeNpmrc(h, [registryLine(f.registryUrl)]);
  const layout = prefixLayout({ home: h, platform: "linux", pins: f.pins });
  return { h, layout, gs: join(h, ".gentle-shell", "bin", "gentle-shell") };
}

/** The one-liner as the docs give it, with --yes (nobody to ask here) and the fixtures' release source. */
function oneLiner(h: string) {
  return runCommand("sh", ["-c", `curl -fsSL "${base}/dl/install.sh" | sh -s -- --yes --source "${f.mirrorUrl}"`], {
    env: homeEnv(h, { GENTLE_SHELL_SETUP_DOWNLOAD: `${base}/dl`, SHELL: "/bin/bash" }),
    cwd: h,
  });
}

async function flipLastByte(path: string): Promise<void> {
  const handle = await fs.open(path, "r+");
  const { size } = await handle.stat();
  const last = Buffer.alloc(1);
  await handle.read(last, 0, 1, size - 1);
  await handle.write(Buffer.from([last[0]! ^ 0x01]), 0, 1, size - 1);
  await handle.close();
}

describe.concurrent("the one-liner, run again, repairs a broken runtime", () => {
  it("bin/node deleted: the launcher names Node and the one-liner; the one-liner again downloads Node again; gentle-shell --version works", async () => {
    const { h, layout, gs } = await home();
    const first = await oneLiner(h);
    expect(first.code, first.stdout + first.stderr).toBe(0);
    await fs.rm(layout.node);

    const broken = await runCommand(gs, ["--version"], { env: homeEnv(h) });
    expect(broken.code).toBe(1);
    // gentle-shell-setup is not on this PATH (the one-liner keeps no copy): the one-liner is the repair.
    expect(broken.stderr).toBe(`${NODE_MISSING} (${layout.node}); ${nodeRepairRerun("posix")}\n${NO_ACTIVE_VERSION_HINT}\n`);

    const again = await oneLiner(h);
    expect(again.code, again.stdout + again.stderr).toBe(0);
    expect(again.stdout).toContain(
      `Node ${f.pins.node.version} installed again (it is incomplete: ~/.gentle-shell/runtime/node-${f.pins.node.version}/bin/node is gone)`,
    );
    expect(again.stdout).toContain(`pnpm ${f.pins.pnpm.version} reused`);
    const version = await runCommand(gs, ["--version"], { env: homeEnv(h) });
    expect(version.code, version.stderr).toBe(0);
    expect(version.stdout.split("\n").slice(0, 2)).toEqual([`gentle-shell ${latest.shell}`, `pi ${latest.pi}`]);
    expect(await checkFileRecord(layout.nodeDir)).toMatchObject({ kind: "checked", differences: [] });
    // Nothing set aside is left behind.
    expect((await fs.readdir(layout.runtime)).filter((n) => n.startsWith("."))).toEqual([]);
  });

  it("a byte of pnpm changed, Node's record deleted, node chmod -x: each named, each downloaded again, and the install is healthy", async () => {
    const { h, layout, gs } = await home();
    const first = await oneLiner(h);
    expect(first.code, first.stdout + first.stderr).toBe(0);
    await flipLastByte(layout.pnpmEntry);
    await fs.rm(join(layout.nodeDir, RUNTIME_FILES));

    const again = await oneLiner(h);
    expect(again.code, again.stdout + again.stderr).toBe(0);
    expect(again.stdout).toContain(
      `Node ${f.pins.node.version} installed again (it has lost its file record .gentle-shell-files, so its files cannot be checked)`,
    );
    expect(again.stdout).toContain(`pnpm ${f.pins.pnpm.version} installed again (it differs from its pinned archive: package/bin/pnpm.mjs has other bytes)`);
    for (const dir of [layout.nodeDir, layout.pnpmDir]) expect(await checkFileRecord(dir), dir).toMatchObject({ kind: "checked", differences: [] });

    // node no longer executable: the launcher says Node cannot run, and the rerun finds the mode the record holds changed.
    await fs.chmod(layout.node, 0o644);
    expect((await runCommand(gs, ["--version"], { env: homeEnv(h) })).stderr).toContain(NODE_MISSING);
    const third = await oneLiner(h);
    expect(third.code, third.stdout + third.stderr).toBe(0);
    expect(third.stdout).toContain(`Node ${f.pins.node.version} installed again (it differs from its pinned archive: bin/node has other permissions)`);
    const status = await runCommand(gs, ["status", "--no-memory"], { env: homeEnv(h) });
    expect(status.code, status.stdout + status.stderr).toBe(0);
    expect(status.stdout).toMatch(/^Gentle Shell in ~\/\.gentle-shell: healthy\n/);
  });

  it("Pi's bin file deleted from the active version: the launcher says so, and the one-liner again installs the version again", async () => {
    const { h, layout, gs } = await home();
    const first = await oneLiner(h);
    expect(first.code, first.stdout + first.stderr).toBe(0);
    const id = await readCurrent(layout);
    const piDir = join(layout.versions, id!, "node_modules", PI_PACKAGE);
    const pkg = JSON.parse(await fs.readFile(join(piDir, "package.json"), "utf8")) as { bin: string | Record<string, string> };
    const bin = typeof pkg.bin === "string" ? pkg.bin : Object.values(pkg.bin)[0]!;
    await fs.rm(join(piDir, bin));

    const broken = await runCommand(gs, ["--version"], { env: homeEnv(h) });
    expect(broken.code).toBe(1);
    expect(broken.stderr).toContain("the Gentle Shell installer again");

    const again = await oneLiner(h);
    expect(again.code, again.stdout + again.stderr).toBe(0);
    expect(again.stdout).toContain(`with Pi ${latest.pi} installed again (it has lost ${PI_PACKAGE}'s ${bin})`);
    const version = await runCommand(gs, ["--version"], { env: homeEnv(h) });
    expect(version.code, version.stderr).toBe(0);
    expect(version.stdout.split("\n").slice(0, 2)).toEqual([`gentle-shell ${latest.shell}`, `pi ${latest.pi}`]);
    expect((await fs.readdir(layout.versions)).filter((n) => n.startsWith("."))).toEqual([]);
  });

  it("a healthy install run again reuses each runtime, every byte checked, and downloads none", async () => {
    const { h } = await home();
    const first = await oneLiner(h);
    expect(first.code, first.stdout + first.stderr).toBe(0);
    const again = await oneLiner(h);
    expect(again.code, again.stdout + again.stderr).toBe(0);
    expect(again.stdout).toContain(`Node ${f.pins.node.version} reused, pnpm ${f.pins.pnpm.version} reused`);
    expect(again.stdout).not.toContain("installed again");
  });
});
