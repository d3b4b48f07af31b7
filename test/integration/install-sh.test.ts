/**
 * installers/install.sh, the `curl … | sh` bootstrap, run for real: piped
 * into dash, bash and zsh from curl, against a local download folder holding
 * the fixture binary and its SHA256SUMS.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createReadStream, promises as fs } from "node:fs";
import { createHash } from "node:crypto";
import { createServer, type Server } from "node:http";
import { basename, join } from "pathe";
import { fixtures } from "../support/context";
import { homeEnv } from "../support/fixtures";
import { runCommand } from "../support/proc";
import { REPO_ROOT } from "../support/paths";
import { scratchDir } from "../support/scratch";

const f = fixtures();
const script = join(REPO_ROOT, "installers", "install.sh");
const latest = f.releases[f.releases.length - 1]!;
let server: Server;
let base: string;
let tampered: string;
const files = new Map<string, string>();

beforeAll(async () => {
  const dir = scratchDir("gss-download-");
  // SHA256SUMS as the release publishes it, for the binary the fixtures built.
  const digest = createHash("sha256")
    .update(await fs.readFile(f.binary!))
    .digest("hex");
  const sums = `${"0".repeat(64)}  gentle-shell-setup-darwin-arm64\n${digest}  ${basename(f.binary!)}\n`;
  files.set("/good/SHA256SUMS", join(dir, "SHA256SUMS"));
  await fs.writeFile(files.get("/good/SHA256SUMS")!, sums);
  files.set(`/good/${basename(f.binary!)}`, f.binary!);
  files.set("/good/install.sh", script);
  // A copy whose last byte differs from what SHA256SUMS says.
  tampered = join(dir, "tampered");
  await fs.copyFile(f.binary!, tampered);
  const handle = await fs.open(tampered, "r+");
  const { size } = await handle.stat();
  const last = Buffer.alloc(1);
  await handle.read(last, 0, 1, size - 1);
  await handle.write(Buffer.from([last[0]! ^ 0xff]), 0, 1, size - 1);
  await handle.close();
  files.set("/bad/SHA256SUMS", files.get("/good/SHA256SUMS")!);
  files.set(`/bad/${basename(f.binary!)}`, tampered);
  server = createServer((req, res) => {
    const file = files.get(req.url ?? "");
    if (!file) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200);
    createReadStream(file).pipe(res);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  const address = server.address();
  base = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
});

afterAll(async () => {
  await new Promise((r) => server.close(r));
});

async function home() {
  const h = join(scratchDir("gss-sh-"), "home");
  await fs.mkdir(h, { recursive: true });
  await fs.writeFile(join(h, ".npmrc"), `registry=${f.registryUrl}\n`);
  return h;
}

describe.concurrent("curl … | sh", () => {
  for (const shell of ["dash", "bash", "zsh"]) {
    it(`installs through ${shell} and passes the arguments on`, async () => {
      const h = await home();
      const r = await runCommand(shell, ["-c", `curl -fsSL "${base}/good/install.sh" | ${shell} -s -- --yes --source "${f.mirrorUrl}"`], {
        env: homeEnv(h, { GENTLE_SHELL_SETUP_DOWNLOAD: `${base}/good`, SHELL: "/bin/bash" }),
        cwd: h,
        timeoutMs: 170_000,
      });
      expect(r.code, r.stdout + r.stderr).toBe(0);
      expect(r.stderr).toContain("gentle-shell-setup: downloading gentle-shell-setup-linux-x64");
      expect(r.stdout).toContain("Gentle Shell is installed: ~/.gentle-shell/bin/gentle-shell");
      const v = await runCommand(join(h, ".gentle-shell", "bin", "gentle-shell"), ["--version"], { env: homeEnv(h) });
      expect(v.stdout.split("\n")[0]).toBe(`gentle-shell ${latest.shell}`);
    });
  }

  it("refuses a binary that does not match SHA256SUMS and installs nothing", async () => {
    const h = await home();
    const r = await runCommand("sh", [script, "--yes", "--source", f.mirrorUrl], {
      env: homeEnv(h, { GENTLE_SHELL_SETUP_DOWNLOAD: `${base}/bad` }),
      cwd: h,
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/gentle-shell-setup-linux-x64 does not match SHA256SUMS \(expected [0-9a-f]{64}, got [0-9a-f]{64}\); nothing was installed/);
    expect(await fs.readdir(h)).toEqual([".npmrc"]);
  });

  it("refuses a plain-http download folder that is not the loopback address", async () => {
    const h = await home();
    const r = await runCommand("sh", [script, "--yes"], { env: homeEnv(h, { GENTLE_SHELL_SETUP_DOWNLOAD: "http://mirror.example/dl" }), cwd: h });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("GENTLE_SHELL_SETUP_DOWNLOAD must be an https URL");
  });

  it("says so when the download folder lacks the binary", async () => {
    const h = await home();
    const r = await runCommand("sh", [script, "--yes"], { env: homeEnv(h, { GENTLE_SHELL_SETUP_DOWNLOAD: `${base}/missing` }), cwd: h });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`could not download SHA256SUMS from ${base}/missing`);
  });
});
