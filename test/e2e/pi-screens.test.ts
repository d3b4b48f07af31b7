/**
 * Pi's screens, captured from the real Pi 1.6.0 in tmux through the
 * installed launcher, and read by the screen classifier (support/screen.ts).
 *
 * Each screen is taken on a sign that does not come from the classifier:
 * working while the stub model holds the request, idle once the answer is
 * drawn and the screen is still, a dialog once its title is drawn and the
 * screen is still. Then the classifier must read what the detection rules
 * say. With GSS_WRITE_PI_SCREENS=1 the captures are also written to
 * test/support/screens/<state>.<what>.<columns>.txt, the fixtures of
 * test/unit/pi-screen.test.ts ("none" for a screen no rule matches).
 */
import { randomUUID } from "node:crypto";
import { promises as fs } from "node:fs";
import { join } from "pathe";
import { beforeAll, describe, expect, it } from "vitest";
import { fixtures } from "../support/context";
import { installed, type Installed } from "../support/installed";
import { SUPPORT_DIR } from "../support/paths";
import { addPiExtension, piEnv } from "../support/pi-home";
import { runCommand } from "../support/proc";
import { classifyPiScreen, type PiScreenState } from "../support/screen";
import { stubModelClient, writeStubModelConfig } from "../support/stub-model";
import { Terminal } from "../support/tmux";

const f = fixtures();
const WRITE = process.env.GSS_WRITE_PI_SCREENS === "1";
const ROWS = 24;
const ANSWER = "Stub done.";
let i: Installed;
let project: string;
let model: Awaited<ReturnType<ReturnType<typeof stubModelClient>["scope"]>>;

beforeAll(async () => {
  i = await installed(f);
  const agent = join(i.prefix, "agent");
  model = await stubModelClient(f.modelUrl).scope(ANSWER);
  await writeStubModelConfig(agent, model.baseUrl);
  await addPiExtension(agent, "gss-dialogs.js");
  project = join(i.home, "p");
  await fs.mkdir(project, { recursive: true });
});

function open(columns: number, args: string[] = [], cwd = project): Promise<Terminal> {
  return Terminal.open({ command: [i.gs, ...args], cwd, env: piEnv(i.env), columns, rows: ROWS });
}

/** Wait for `test` on a screen that then stays the same for half a second. */
async function still(t: Terminal, test: (s: string) => boolean, what: string): Promise<string> {
  for (;;) {
    const first = await t.waitFor(test, what);
    await new Promise((r) => setTimeout(r, 500));
    if ((await t.screen()) === first) return first;
  }
}

/** Check a capture against the classifier, and keep it as a fixture when asked. */
async function check(screen: string, expected: PiScreenState | null, what: string, columns: number) {
  expect(classifyPiScreen(screen, columns), `${what} at ${columns} columns:\n${screen}`).toBe(expected);
  if (WRITE) await fs.writeFile(join(SUPPORT_DIR, "screens", `${expected ?? "none"}.${what}.${columns}.txt`), screen);
}

/** Wait until the stub model has received one more request than `before`. */
async function requested(before: number) {
  for (let n = 0; (await model.requests()).length <= before; n++) {
    if (n > 600) throw new Error("the stub model got no request");
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe("Pi's screens in tmux, read by the classifier", () => {
  it.each([19, 20, 40, 80, 120])("a turn at %i columns: working while the model holds it, idle after the answer", async (columns) => {
    const t = await open(columns);
    try {
      // Ready for input: the footer names the model (cut to the width).
      await still(t, (s) => s.includes("~/p"), "Pi's footer");
      const before = (await model.requests()).length;
      await model.setDelay(3000);
      await t.type("hello");
      await requested(before);
      await new Promise((r) => setTimeout(r, 700));
      await check(await t.screen(), columns < 20 ? null : "working", "working", columns);
      await model.setDelay(0);
      const idle = await still(t, (s) => s.includes(ANSWER), "the answer");
      await check(idle, columns < 20 ? null : "idle", "idle", columns);
    } finally {
      await model.setDelay(0);
      await t.close();
    }
  });

  it.each([20, 80])("an extension's dialogs, /trust and /login at %i columns", async (columns) => {
    const t = await open(columns);
    try {
      await still(t, (s) => s.includes("~/p"), "Pi's footer");
      for (const [command, title] of [
        ["/gss-select", "Pick a colour"],
        ["/gss-confirm", "Delete it?"],
        ["/gss-input", "Your name"],
        ["/gss-editor", "Edit the note"],
        // Pi's own: the /trust selector and /login's first step
        ["/trust", "Project trust"],
        ["/login", "authentication"],
      ] as const) {
        await t.type(command);
        const screen = await still(t, (s) => s.includes(title), title);
        // At 20 columns the /trust selector is taller than the 24 rows: Pi clips its bottom rows, its lower
        // border with them, so it shows no frame and matches no rule (the spec's clipped prompt).
        const clipped = command === "/trust" && columns === 20;
        await check(screen, clipped ? null : "blocked", command.replace(/^\/(gss-)?/, "") + (clipped ? "-clipped" : ""), columns);
        await t.keys("Escape");
        await t.waitFor((s) => !s.includes(title), `${title} closed`);
      }
    } finally {
      await t.close();
    }
  });

  it("the model selector matches no rule (its list rows withhold idle)", async () => {
    const t = await open(80);
    try {
      await still(t, (s) => s.includes("~/p"), "Pi's footer");
      await t.type("/model");
      await check(await still(t, (s) => s.includes("Model Name:"), "the model selector"), null, "model-selector", 80);
    } finally {
      await t.close();
    }
  });

  it.each([20, 80])("Pi's project trust prompt at startup (no footer) reads blocked at %i columns", async (columns) => {
    const cwd = join(i.home, `trust-${columns}`);
    await fs.mkdir(join(cwd, ".pi"), { recursive: true });
    await fs.writeFile(join(cwd, ".pi", "settings.json"), "{}\n");
    const t = await open(columns, [], cwd);
    try {
      await check(await still(t, (s) => s.includes("Do not trust"), "the trust prompt"), "blocked", "trust-prompt", columns);
    } finally {
      await t.close();
    }
  });

  it("Pi's missing session cwd prompt reads blocked", async () => {
    // A session made in a folder that is gone, opened by its file.
    const gone = join(i.home, "gone");
    await fs.mkdir(gone);
    const id = randomUUID();
    const r = await runCommand(i.gs, ["--session-id", id, "-p", "hi"], { env: piEnv(i.env), cwd: gone });
    expect(r.code, r.stderr).toBe(0);
    await fs.rm(gone, { recursive: true });
    const sessions = join(i.prefix, "agent", "sessions");
    const file = (await fs.readdir(sessions, { recursive: true })).map(String).find((p) => p.endsWith(`_${id}.jsonl`));
    expect(file).toBeDefined();
    const t = await open(80, ["--session", join(sessions, file!)]);
    try {
      await check(
        await still(t, (s) => s.includes("Session cwd does not exist") && s.includes("Cancel"), "the missing cwd prompt"),
        "blocked",
        "missing-cwd",
        80,
      );
    } finally {
      await t.close();
    }
  });
});
