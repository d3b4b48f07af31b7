/**
 * Pi's session contract (pi-runtime-package.md: "Native reference",
 * "Existence check", "Session-dir overrides", "Operating notes"), for real:
 * the launcher of one install by the fixture binary runs the exact pinned Pi
 * 1.6.0 against the stub model, in print mode and in tmux.
 *
 * Where Pi 1.6.0 differs from the spec's wording, the test follows Pi: a
 * session file appears with the user's first message, before any model
 * reply (session-manager.js _persist), not "only after the first model reply".
 */
import { randomUUID } from "node:crypto";
import { existsSync, promises as fs } from "node:fs";
import { basename, dirname, join } from "pathe";
import { beforeAll, describe, expect, it } from "vitest";
import { fixtures } from "../support/context";
import { installed, type Installed } from "../support/installed";
import { gs } from "../support/launch";
import { addPiExtension, piEnv, projectSessionFolder, readSession, requestTurns, sessionFileName, sessionFiles } from "../support/pi-home";
import { stubModelClient, writeStubModelConfig } from "../support/stub-model";
import { Terminal } from "../support/tmux";

const f = fixtures();
let i: Installed;
let agent: string;
let sessions: string;
let model: Awaited<ReturnType<ReturnType<typeof stubModelClient>["scope"]>>;

beforeAll(async () => {
  i = await installed(f);
  agent = join(i.prefix, "agent");
  sessions = join(agent, "sessions");
  model = await stubModelClient(f.modelUrl).scope();
  await writeStubModelConfig(agent, model.baseUrl);
  await addPiExtension(agent, "gss-argv.js");
});

async function project(name: string): Promise<string> {
  const dir = join(i.home, name);
  await fs.mkdir(dir, { recursive: true });
  return dir;
}

/** The stub model's requests from now on. */
async function requestsSince<T>(work: () => Promise<T>): Promise<{ result: T; requests: Awaited<ReturnType<typeof model.requests>> }> {
  const before = (await model.requests()).length;
  const result = await work();
  return { result, requests: (await model.requests()).slice(before) };
}

/** A session with one turn, made with --session-id in a project of its own. */
async function newSession(name: string, extra: NodeJS.ProcessEnv = {}) {
  const cwd = await project(name);
  const id = randomUUID();
  await model.setAnswer(`First answer (${name}).`);
  const r = await gs(i, ["--session-id", id, "-p", `first turn (${name})`], piEnv({}, extra), { cwd });
  expect(r.code, r.stderr).toBe(0);
  expect(r.stdout.trim()).toBe(`First answer (${name}).`);
  const turns = [
    { role: "user", text: `first turn (${name})` },
    { role: "assistant", text: `First answer (${name}).` },
  ];
  return { cwd, id, turns };
}

describe("Pi's session contract through the installed launcher", () => {
  it("--session-id <uuid> -p creates sessions/--<cwd>--/<ISO time>_<uuid>.jsonl in the agent home, holding the turn", async () => {
    const { result: s, requests } = await requestsSince(() => newSession("alpha"));
    const files = await sessionFiles(sessions, s.id);
    expect(files).toHaveLength(1);
    expect(dirname(files[0]!)).toBe(join(sessions, projectSessionFolder(s.cwd)));
    expect(basename(files[0]!)).toMatch(sessionFileName(s.id));
    const { header, turns } = await readSession(files[0]!);
    expect(header).toMatchObject({ type: "session", id: s.id, cwd: s.cwd });
    expect(header).not.toHaveProperty("parentSession");
    expect(turns).toEqual(s.turns);
    // A new session: the model saw this turn alone.
    expect(requests.map((r) => requestTurns(r.body))).toEqual([[s.turns[0]]]);
    // Pi's own default store (~/.pi/agent) is not used.
    expect(existsSync(join(i.home, ".pi"))).toBe(false);
  });

  it("--session <uuid> resumes that session: the stub model gets the earlier turn, and the same file grows", async () => {
    const s = await newSession("beta");
    const [file] = await sessionFiles(sessions, s.id);
    await model.setAnswer("Second answer (beta).");
    const { result: r, requests } = await requestsSince(() => gs(i, ["--session", s.id, "-p", "second turn (beta)"], piEnv({}), { cwd: s.cwd }));
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe("Second answer (beta).");
    expect(requests).toHaveLength(1);
    expect(requestTurns(requests[0]!.body)).toEqual([...s.turns, { role: "user", text: "second turn (beta)" }]);
    expect(await sessionFiles(sessions, s.id)).toEqual([file]);
    expect((await readSession(file!)).turns).toEqual([
      ...s.turns,
      { role: "user", text: "second turn (beta)" },
      { role: "assistant", text: "Second answer (beta)." },
    ]);
  });

  it("--session with an id no file has is refused, and creates nothing", async () => {
    const cwd = await project("nowhere");
    const id = randomUUID();
    const { result: r, requests } = await requestsSince(() => gs(i, ["--session", id, "-p", "hello?"], piEnv({}), { cwd }));
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`No session found matching '${id}'`);
    expect(requests).toEqual([]);
    expect(await sessionFiles(sessions, id)).toEqual([]);
  });

  it("an interactive --session-id session has no file until its first message, and has one before the model replies", async () => {
    const cwd = await project("epsilon");
    const id = randomUUID();
    await model.setAnswer("Late answer (epsilon).");
    const t = await Terminal.open({ command: [i.gs, "--session-id", id], cwd, env: piEnv(i.env) });
    await t.waitForPi("idle");
    expect(await sessionFiles(sessions, id)).toEqual([]);
    await model.setDelay(4000);
    try {
      const before = (await model.requests()).length;
      await t.type("first turn (epsilon)");
      for (let n = 0; (await model.requests()).length === before; n++) {
        if (n > 300) throw new Error(`the model never got the turn; the screen shows:\n${await t.screen()}`);
        await new Promise((r) => setTimeout(r, 50));
      }
      // The model has the request and has not answered: the file already holds the user's message.
      const files = await sessionFiles(sessions, id);
      expect(files).toHaveLength(1);
      expect((await readSession(files[0]!)).turns).toEqual([{ role: "user", text: "first turn (epsilon)" }]);
      await t.waitFor((s) => s.includes("Late answer (epsilon).") && s.includes("first turn (epsilon)"), "the answer");
      await t.waitForPi("idle");
      expect((await readSession(files[0]!)).turns).toEqual([
        { role: "user", text: "first turn (epsilon)" },
        { role: "assistant", text: "Late answer (epsilon)." },
      ]);
    } finally {
      await model.setDelay(0);
      await t.close();
    }
  });

  it("--fork <uuid> --session-id <uuid2> writes the fork's file at once, naming the source file as parentSession", async () => {
    const s = await newSession("gamma");
    const [source] = await sessionFiles(sessions, s.id);
    const sourceBytes = await fs.readFile(source!, "utf8");
    const fork = randomUUID();
    const { requests } = await requestsSince(async () => {
      const t = await Terminal.open({ command: [i.gs, "--fork", s.id, "--session-id", fork], cwd: s.cwd, env: piEnv(i.env) });
      try {
        await t.waitForPi("idle");
        const files = await sessionFiles(sessions, fork);
        expect(files).toHaveLength(1);
        expect(dirname(files[0]!)).toBe(dirname(source!));
        expect(basename(files[0]!)).toMatch(sessionFileName(fork));
        const { header, turns } = await readSession(files[0]!);
        expect(header).toMatchObject({ type: "session", id: fork, cwd: s.cwd, parentSession: source });
        expect(turns).toEqual(s.turns);
      } finally {
        await t.close();
      }
    });
    // No model turn was needed for the fork's file, and the source is untouched.
    expect(requests).toEqual([]);
    expect(await fs.readFile(source!, "utf8")).toBe(sourceBytes);

    // The fork resumes by its own id, with the source's history.
    await model.setAnswer("Answer after the fork.");
    const resumed = await requestsSince(() => gs(i, ["--session", fork, "-p", "after the fork"], piEnv({}), { cwd: s.cwd }));
    expect(resumed.result.code, resumed.result.stderr).toBe(0);
    expect(requestTurns(resumed.requests[0]!.body)).toEqual([...s.turns, { role: "user", text: "after the fork" }]);
    expect(await fs.readFile(source!, "utf8")).toBe(sourceBytes);

    // Pi refuses a fork id that already names a session.
    const again = await requestsSince(() => gs(i, ["--fork", s.id, "--session-id", fork, "-p", "fork again"], piEnv({}), { cwd: s.cwd }));
    expect(again.result.code).toBe(1);
    expect(again.result.stderr).toContain(`Session already exists with id '${fork}'`);
    expect(again.requests).toEqual([]);
    expect(await sessionFiles(sessions, fork)).toHaveLength(1);
  });

  it("PI_CODING_AGENT_SESSION_DIR is honoured: the files sit directly in it, and only it is searched on resume", async () => {
    const store = join(i.root, "session store");
    const s = await newSession("delta", { PI_CODING_AGENT_SESSION_DIR: store });
    const names = await fs.readdir(store);
    expect(names).toHaveLength(1);
    expect(names[0]).toMatch(sessionFileName(s.id));
    expect((await fs.stat(join(store, names[0]!))).isFile()).toBe(true);
    expect(await sessionFiles(sessions, s.id)).toEqual([]);
    expect((await readSession(join(store, names[0]!))).header).toMatchObject({ id: s.id, cwd: s.cwd });

    await model.setAnswer("Second answer (delta).");
    const resumed = await requestsSince(() =>
      gs(i, ["--session", s.id, "-p", "second turn (delta)"], piEnv({}, { PI_CODING_AGENT_SESSION_DIR: store }), { cwd: s.cwd }),
    );
    expect(resumed.result.code, resumed.result.stderr).toBe(0);
    expect(requestTurns(resumed.requests[0]!.body)).toEqual([...s.turns, { role: "user", text: "second turn (delta)" }]);
    expect(await fs.readdir(store)).toEqual(names);

    // Without the variable Pi looks in the agent home, where this session is not.
    const lost = await gs(i, ["--session", s.id, "-p", "where is it?"], piEnv({}), { cwd: s.cwd });
    expect(lost.code).toBe(1);
    expect(lost.stderr).toContain(`No session found matching '${s.id}'`);
  });

  describe("the launcher never adds --session-dir", () => {
    // What Pi parses is its process.argv (cli-runtime.js: main(process.argv.slice(2))); the gss-argv
    // extension records it from inside the Pi process. /proc/<pid>/cmdline would not do: Pi retitles
    // its process to "pi", which overwrites it.
    const piCli = () =>
      join(i.prefix, "versions", f.releases[f.releases.length - 1]!.id, "node_modules", "@earendil-works", "pi-coding-agent", "dist", "bundle", "cli.js");
    const gentlePi = () => join(i.prefix, "versions", f.releases[f.releases.length - 1]!.id, "node_modules", "gentle-pi");

    async function recorded(file: string): Promise<{ argv: string[]; sessionDirVariable: string | null }> {
      return JSON.parse(await fs.readFile(file, "utf8"));
    }

    it.each([
      ["a new session in print mode", () => ["--session-id", randomUUID(), "-p", "hi"], {}],
      ["a new session with PI_CODING_AGENT_SESSION_DIR set", () => ["--session-id", randomUUID(), "-p", "hi"], { store: true }],
      ["print mode without session flags", () => ["-p", "hi"], {}],
    ] as const)("%s: Pi gets the version's gentle-pi and the user's arguments, nothing else", async (_name, args, options) => {
      const cwd = await project("zeta");
      const record = join(i.root, `argv-${randomUUID()}.json`);
      const store = join(i.root, "zeta store");
      const argv = args();
      const r = await gs(i, argv, piEnv({}, { GSS_ARGV_RECORD: record, ...("store" in options ? { PI_CODING_AGENT_SESSION_DIR: store } : {}) }), { cwd });
      expect(r.code, r.stderr).toBe(0);
      const rec = await recorded(record);
      expect(rec.argv).toEqual([join(i.prefix, "runtime", "node-24.21.0", "bin", "node"), piCli(), "--extension", gentlePi(), ...argv]);
      expect(rec.sessionDirVariable).toBe("store" in options ? store : null);
      // Pi's own behaviour agrees: a --session-dir would win over the variable, yet the file is in the variable's folder.
      if (argv[0] === "--session-id") {
        const where = "store" in options ? store : join(sessions, projectSessionFolder(cwd));
        expect((await sessionFiles(where, argv[1])).map((p) => dirname(p))).toEqual([where]);
      }
    });

    it("an interactive launch in tmux (--session): Pi gets exactly the same", async () => {
      const s = await newSession("eta");
      const record = join(i.root, `argv-${randomUUID()}.json`);
      const t = await Terminal.open({ command: [i.gs, "--session", s.id], cwd: s.cwd, env: piEnv(i.env, { GSS_ARGV_RECORD: record }) });
      try {
        await t.waitForPi("idle");
        const rec = await recorded(record);
        expect(rec.argv.slice(1)).toEqual([piCli(), "--extension", gentlePi(), "--session", s.id]);
        expect(rec.argv).not.toContain("--session-dir");
      } finally {
        await t.close();
      }
    });
  });
});
