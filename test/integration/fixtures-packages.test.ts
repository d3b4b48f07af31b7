/**
 * The package fixtures, each doing what the other tests rely on: the
 * registry (verdaccio) with the fixture gentle-pi and Pi proxied from the
 * uplink, real Pi 1.6.0 installed with npm on our Node 24.21.0 talking to the
 * stub model, the fixture release installed with our pnpm from its lockfile,
 * and the stub model itself with makeHome. The mirror, archives, pins and
 * binary: fixtures-artifacts.test.ts.
 */
import { createHash } from "node:crypto";
import { access, constants, mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { prefixLayout } from "../../src/core/layout";
import { pnpmEnvironment } from "../../src/core/environment";
import { fixtures } from "../support/context";
import { homeEnv, makeHome } from "../support/fixtures";
import { GENTLE_AI_IN_PACKAGE, GENTLE_PI_MARKER, packGentlePi, readGentleAiRecord, readGentleAiRuns } from "../support/gentle-pi";
import { runChecked, runCommand } from "../support/proc";
import { scratchDir } from "../support/scratch";
import { STUB_ANSWER, STUB_MODEL_ID, STUB_PROVIDER, stubModelClient, writeStubModelConfig } from "../support/stub-model";
import { toolchain } from "../support/toolchain";

const f = fixtures();
const work = scratchDir("gss-fixtures-test-");

const PI_ENV = { PI_OFFLINE: "1", PI_SKIP_VERSION_CHECK: "1", PI_TELEMETRY: "0" };
const piCli = (root: string) => join(root, "node_modules", "@earendil-works", "pi-coding-agent", "dist", "bundle", "cli.js");

describe("registry", () => {
  it("serves the fixture gentle-pi 4.0.0 and 4.1.0 (latest), packed reproducibly", async () => {
    const packument = (await (await fetch(new URL("gentle-pi", f.registryUrl))).json()) as {
      "dist-tags": Record<string, string>;
      versions: Record<string, { dist: { integrity: string; tarball: string }; peerDependencies: Record<string, string> }>;
    };
    expect(packument["dist-tags"].latest).toBe("4.1.0");
    expect(Object.keys(packument.versions).sort()).toEqual(["4.0.0", "4.1.0"]);
    expect(packument.versions["4.1.0"]!.peerDependencies).toEqual({ "@earendil-works/pi-coding-agent": "*" });
    const again = await packGentlePi("4.1.0", join(work, "packed"));
    expect(packument.versions["4.1.0"]!.dist.integrity).toBe(again.integrity);
    const tarball = Buffer.from(await (await fetch(packument.versions["4.1.0"]!.dist.tarball)).arrayBuffer());
    expect("sha512-" + createHash("sha512").update(tarball).digest("base64")).toBe(again.integrity);
  });

  it("proxies Pi from the uplink npm names", async () => {
    const response = await fetch(new URL("@earendil-works%2fpi-coding-agent", f.registryUrl));
    expect(response.status).toBe(200);
    const packument = (await response.json()) as { versions: Record<string, { dist: { tarball: string } }> };
    expect(packument.versions["1.6.0"]!.dist.tarball.startsWith(f.registryUrl)).toBe(true);
  });
});

describe("real Pi with the stub model", () => {
  it("Pi 1.6.0 installed with npm from the registry answers -p with the stub's text", async () => {
    const tc = await toolchain();
    const node = await tc.ensureNodeBinary();
    const dir = join(work, "npm-pi");
    await mkdir(dir, { recursive: true });
    const userconfig = join(dir, "npmrc");
    await writeFile(userconfig, `registry=${f.registryUrl}\nfund=false\naudit=false\nupdate-notifier=false\n`);
    await runChecked("npm", ["install", "--userconfig", userconfig, "--ignore-scripts", "@earendil-works/pi-coding-agent@1.6.0"], {
      cwd: dir,
      env: homeEnv(dir),
    });
    const manifest = JSON.parse(await readFile(join(dir, "node_modules/@earendil-works/pi-coding-agent/package.json"), "utf8"));
    expect(manifest.bin.pi).toBe("dist/bundle/cli.js");

    const stub = await stubModelClient(f.modelUrl).scope("Hi! The stub model speaks.");
    const home = await makeHome(join(dir, "home"), f, { modelBaseUrl: stub.baseUrl });
    const result = await runCommand(node, [piCli(dir), "-p", "say hi"], {
      cwd: dir,
      env: { ...home.env, PI_CODING_AGENT_DIR: home.agentDir, ...PI_ENV },
    });
    expect(result.stdout.trim(), result.stderr).toBe("Hi! The stub model speaks.");
    expect(result.code).toBe(0);
    const requests = await stub.requests();
    expect(requests).toHaveLength(1);
    const body = requests[0]!.body as { model: string; stream: boolean; messages: { role: string; content: unknown }[] };
    expect(body.model).toBe(STUB_MODEL_ID);
    expect(body.stream).toBe(true);
    expect(JSON.stringify(body.messages.at(-1))).toContain("say hi");
    expect(requests[0]!.authorization).toMatch(/^Bearer \S+/);
  });
});

describe("fixture release installed with our pnpm from its lockfile", () => {
  let dir: string;
  let node: string;
  let env: Record<string, string | undefined>;

  beforeAll(async () => {
    node = f.node;
    dir = join(work, "release-4.1.0");
    await mkdir(dir, { recursive: true });
    const release = f.releases.find((r) => r.shell === "4.1.0")!;
    const json = JSON.parse(await readFile(join(f.mirrorRoot, "releases", `v${release.shell}`, "gentle-shell-distribution.json"), "utf8"));
    const lockfile = await readFile(join(f.mirrorRoot, "releases", `v${release.shell}`, "gentle-shell-distribution-lock.yaml"), "utf8");
    expect(json).toMatchObject({ schema: 1, shell: "4.1.0", pi: "1.6.0", id: "4.1.0-1.6.0" });
    expect(json.lockfile.sha256).toBe(createHash("sha256").update(lockfile).digest("hex"));
    for (const [name, text] of Object.entries(json.files as Record<string, string>)) await writeFile(join(dir, name), text);
    await writeFile(join(dir, "pnpm-lock.yaml"), lockfile);
    const home = join(work, "pnpm-home");
    const layout = prefixLayout({ home, platform: "linux", pins: f.pins });
    await mkdir(join(layout.pnpm.config), { recursive: true });
    await writeFile(layout.pnpm.npmrc, `registry=${f.registryUrl}\n`);
    env = pnpmEnvironment(layout, { env: homeEnv(home), npmrc: `registry=${f.registryUrl}\n` });
    env.PATH = `${join(node, "..")}:${env.PATH}`;
    await runChecked(node, [f.pnpmEntry, "install", "--frozen-lockfile"], { cwd: dir, env });
  });

  it("gentle-pi's one build script left an executable gentle-ai that records argv and environment", async () => {
    const gentleAi = join(dir, "node_modules", "gentle-pi", GENTLE_AI_IN_PACKAGE);
    await access(gentleAi, constants.X_OK);
    const gentleAiHome = join(work, "gentle-ai-home");
    const first = await runCommand(gentleAi, ["install", "--agent", "pi"], {
      cwd: work,
      env: { ...homeEnv(work), GENTLE_AI_HOME: gentleAiHome, GENTLE_AI_NO_SELF_UPDATE: "1" },
    });
    expect(first.code).toBe(0);
    const runs = await readGentleAiRuns(gentleAiHome);
    expect(runs).toHaveLength(1);
    expect(runs[0]!.version).toBe("4.1.0");
    expect(runs[0]!.argv).toEqual(["install", "--agent", "pi"]);
    expect(runs[0]!.cwd).toBe(work);
    expect(runs[0]!.env.GENTLE_AI_NO_SELF_UPDATE).toBe("1");
    expect(runs[0]!.env.GENTLE_AI_HOME).toBe(gentleAiHome);

    const record = join(work, "one.rec");
    const odd = ["a b", "line\nbreak", "quote'\"", ""];
    const second = await runCommand(gentleAi, odd, {
      cwd: work,
      env: { PATH: "/usr/bin:/bin", GENTLE_AI_FIXTURE_RECORD: record, GENTLE_AI_FIXTURE_EXIT: "3", X_VALUE: "1\n2" },
    });
    expect(second.code).toBe(3);
    const parsed = await readGentleAiRecord(record);
    expect(parsed.argv).toEqual(odd);
    expect(parsed.env.X_VALUE).toBe("1\n2");
    expect(parsed.env.GENTLE_AI_HOME).toBeUndefined();
  });

  it("Pi loads the gentle-pi package: the extension writes its marker, and -p reaches the stub", async () => {
    const stub = await stubModelClient(f.modelUrl).scope();
    const agentDir = join(work, "agent-release");
    await writeStubModelConfig(agentDir, stub.baseUrl);
    const result = await runCommand(node, [piCli(dir), "--extension", join(dir, "node_modules", "gentle-pi"), "-p", "say hi"], {
      cwd: dir,
      env: { ...homeEnv(work), PI_CODING_AGENT_DIR: agentDir, ...PI_ENV },
    });
    expect(result.stdout.trim(), result.stderr).toBe(STUB_ANSWER);
    expect(result.code).toBe(0);
    const marker = JSON.parse(await readFile(join(agentDir, GENTLE_PI_MARKER), "utf8"));
    expect(marker).toMatchObject({ name: "gentle-pi", fixture: true, version: "4.1.0" });
    const version = await runCommand(node, [piCli(dir), "--version"], { cwd: dir, env: { ...homeEnv(work), ...PI_ENV } });
    expect(version.stdout.trim()).toBe("1.6.0");
  });
});

describe("stub model", () => {
  it("streams chat.completion.chunk events, a stop chunk and [DONE]; answers without stream too; keeps scopes apart", async () => {
    const client = stubModelClient(f.modelUrl);
    const a = await client.scope("alpha beta");
    const b = await client.scope();
    const stream = await fetch(`${a.baseUrl}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: "Bearer k" },
      body: JSON.stringify({ model: "m", stream: true, messages: [{ role: "user", content: "hi" }] }),
    });
    expect(stream.headers.get("content-type")).toBe("text/event-stream");
    const lines = (await stream.text()).split("\n").filter((l) => l.startsWith("data: "));
    expect(lines.at(-1)).toBe("data: [DONE]");
    const chunks = lines.slice(0, -1).map((l) => JSON.parse(l.slice(6)));
    expect(chunks.every((c) => c.object === "chat.completion.chunk")).toBe(true);
    expect(chunks.map((c) => c.choices[0]?.delta?.content ?? "").join("")).toBe("alpha beta");
    expect(chunks.at(-1).choices[0].finish_reason).toBe("stop");

    await b.setAnswer("plain");
    const plain = (await (await fetch(`${b.baseUrl}/chat/completions`, { method: "POST", body: JSON.stringify({ model: "m", messages: [] }) })).json()) as {
      choices: { message: { content: string }; finish_reason: string }[];
    };
    expect(plain.choices[0]).toMatchObject({ message: { content: "plain" }, finish_reason: "stop" });
    expect((await a.requests()).map((r) => r.authorization)).toEqual(["Bearer k"]);
    expect(await b.requests()).toHaveLength(1);
  });

  it("makeHome writes .npmrc for the registry and the stub model into ~/.gentle-shell/agent", async () => {
    const home = await makeHome(join(work, "made-home"), f);
    expect(await readFile(home.npmrc, "utf8")).toBe(`registry=${f.registryUrl}\n`);
    expect(home.agentDir).toBe(join(home.home, ".gentle-shell", "agent"));
    const models = JSON.parse(await readFile(join(home.agentDir, "models.json"), "utf8"));
    expect(models.providers[STUB_PROVIDER]).toMatchObject({ baseUrl: `${f.modelUrl}/v1`, api: "openai-completions" });
    expect(models.providers[STUB_PROVIDER].apiKey).not.toBe("");
    const settings = JSON.parse(await readFile(join(home.agentDir, "settings.json"), "utf8"));
    expect(settings).toEqual({ defaultProvider: STUB_PROVIDER, defaultModel: STUB_MODEL_ID });
    expect(home.env.HOME).toBe(home.home);
  });
});
