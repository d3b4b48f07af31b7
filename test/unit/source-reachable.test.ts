/**
 * A --source that cannot be read is named in one sentence before any download
 * (src/install/source-reachable.ts): a missing folder, a file, a mirror that does
 * not answer. A mirror that answers anything, even a 404, passes: its files
 * are checked one by one against the pins later.
 */
import { causeText } from "../../src/io/transport";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createServer, type Server } from "node:http";
import { mkdtempSync, promises as fs } from "node:fs";
import type { AddressInfo, Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "pathe";
import { checkSourceReachable, type ReachOptions } from "../../src/install/source-reachable";
import { EXIT } from "../../src/core/errors";
import { testHost } from "../support/host";

/** The Host a check asks through: this process's environment (its proxy variables), its own HTTP client. */
const host = testHost({ env: process.env });

let root: string;
let answering: Server;
let silent: Server;
const sockets: Socket[] = [];
const url = (server: Server) => `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "gss-source-check-"));
  answering = createServer((_req, res) => res.writeHead(404).end("no such file"));
  // Accepts the connection and never answers.
  silent = createServer(() => undefined);
  silent.on("connection", (s) => sockets.push(s));
  for (const server of [answering, silent]) await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
});
afterAll(async () => {
  for (const s of sockets) s.destroy();
  for (const server of [answering, silent]) await new Promise((done) => server.close(done));
  await fs.rm(root, { recursive: true, force: true });
});

async function refusal(value: string, options: Partial<ReachOptions> = {}): Promise<{ message: string; code: number }> {
  const error = await checkSourceReachable(value, options, host).then(
    () => null,
    (e: Error & { exitCode: number }) => e,
  );
  if (!error) throw new Error(`${value} was accepted`);
  return { message: error.message, code: error.exitCode };
}

describe("checkSourceReachable", () => {
  it("passes the official source, a real folder and a mirror that answers (a 404 too)", async () => {
    await expect(checkSourceReachable(undefined, {}, host)).resolves.toBeUndefined();
    await expect(checkSourceReachable("official", {}, host)).resolves.toBeUndefined();
    await expect(checkSourceReachable(root, {}, host)).resolves.toBeUndefined();
    await expect(checkSourceReachable(`${url(answering)}/mirror/`, {}, host)).resolves.toBeUndefined();
  });

  it("names a folder that does not exist, or is a file, with the flag or knob it came from (exit 2)", async () => {
    const missing = join(root, "no-such-bundle");
    expect(await refusal(missing)).toEqual({ message: `the --source folder ${missing} does not exist; nothing was changed`, code: EXIT.usage });
    expect((await refusal(missing, { from: "GENTLE_SHELL_SOURCE" })).message).toBe(
      `the GENTLE_SHELL_SOURCE folder ${missing} does not exist; nothing was changed`,
    );
    const file = join(root, "a-file");
    await fs.writeFile(file, "x");
    expect(await refusal(file)).toEqual({ message: `--source ${file} is not a folder; nothing was changed`, code: EXIT.usage });
  });

  it("names a mirror that refuses the connection, or never answers (exit 1)", async () => {
    const closed = createServer();
    await new Promise<void>((done) => closed.listen(0, "127.0.0.1", done));
    const dead = url(closed);
    await new Promise((done) => closed.close(done));
    expect(await refusal(`${dead}/mirror`)).toEqual({
      message: `the --source mirror ${dead}/mirror does not answer (ECONNREFUSED); nothing was changed`,
      code: EXIT.failure,
    });
    expect(await refusal(url(silent), { timeoutMs: 300 })).toEqual({
      message: `the --source mirror ${url(silent)} did not answer within 0.3 s; nothing was changed`,
      code: EXIT.failure,
    });
  });
});

describe("causeText", () => {
  it("names Node's string code, and reads past an abort's numeric one", () => {
    const refused = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:9"), { code: "ECONNREFUSED" });
    expect(causeText(new Error("fetch failed", { cause: refused }))).toBe("ECONNREFUSED");
    expect(causeText(new DOMException("This operation was aborted", "AbortError"))).toBe("This operation was aborted");
  });
});
