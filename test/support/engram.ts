/**
 * The fixture Engram (spec: "Engram startup safety").
 *
 * 1. A program, `engram` (POSIX sh; `serve` runs `node` from PATH), that
 *    stands in for the pinned core: `engram version` prints `engram 3.5.2`;
 *    `engram serve` listens on 127.0.0.1:${ENGRAM_PORT:-7437} and answers
 *    GET /health and GET /compatibility with the exact ready contract. Like
 *    the real server it asks for `Authorization: Bearer <ENGRAM_HTTP_TOKEN>`
 *    when that variable is set. GET /__fixture (not part of Engram) reports
 *    the server's argv, cwd and environment, so tests can check how Shell
 *    started it. `serve` never touches ~/.engram.
 *    `engram --help` lists its commands; the default program lists and
 *    implements `migrate-copy` (see MIGRATE_JS), the variant written with
 *    `{ migrateCopy: false }` neither lists nor knows it (an older core).
 *    FIXTURE_ENGRAM_LOG=<file> makes every run append one line: the command,
 *    HOME and the working folder.
 *    `packEngramArchive()` packs it alone as engram_3.5.2_linux_amd64.tar.gz.
 * 2. In-process servers (`startEngramServer`) for every row of the decision
 *    table: ready, 401, 404, an older 3.3.2 server, malformed answers, a
 *    server that is not ready, one too slow to answer; with overrides for
 *    finer contract tests. They record the requests they get.
 */
import { randomBytes } from "node:crypto";
import { chmod, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { packDeterministic } from "./tarball";

export const ENGRAM_VERSION = "3.5.2";
export const ENGRAM_DEFAULT_PORT = 7437;
export const ENGRAM_ARCHIVE_PATH = `engram/v${ENGRAM_VERSION}/engram_${ENGRAM_VERSION}_linux_amd64.tar.gz`;

export function hex32(): string {
  return randomBytes(16).toString("hex");
}

/** The exact ready answer of GET /compatibility. */
export function readyCompatibility(instanceId: string, runtimeId: string) {
  return {
    status: "ready",
    active_reuse_authorized: true,
    capability: "startup-verified-store-v1",
    revision: 1,
    source: "active",
    instance_id: instanceId,
    runtime_id: runtimeId,
  };
}

const SERVER_JS = `
const http = require("node:http");
const crypto = require("node:crypto");
const port = Number(process.env.ENGRAM_PORT || ${ENGRAM_DEFAULT_PORT});
const token = process.env.ENGRAM_HTTP_TOKEN || "";
const instanceId = crypto.randomBytes(16).toString("hex");
const runtimeId = crypto.randomBytes(16).toString("hex");
const args = JSON.parse(process.env.__ENGRAM_FIXTURE_ARGS || "[]");
const env = Object.assign({}, process.env);
delete env.__ENGRAM_FIXTURE_ARGS;
delete process.env.__ENGRAM_FIXTURE_ARGS;
const compatibility = ${JSON.stringify(readyCompatibility("IID", "RID"))};
compatibility.instance_id = instanceId;
compatibility.runtime_id = runtimeId;
function send(res, status, value) {
  const body = JSON.stringify(value);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
  res.end(body);
}
const server = http.createServer((req, res) => {
  const path = new URL(req.url || "/", "http://engram").pathname;
  if (path === "/__fixture") return send(res, 200, { fixture: true, pid: process.pid, argv: args, cwd: process.cwd(), env });
  if (token && req.headers.authorization !== "Bearer " + token) return send(res, 401, { error: "unauthorized" });
  if (req.method === "GET" && path === "/health") return send(res, 200, { status: "ok", version: "${ENGRAM_VERSION}", instance_id: instanceId });
  if (req.method === "GET" && path === "/compatibility") return send(res, 200, compatibility);
  send(res, 404, { error: "not found" });
});
server.on("error", (error) => {
  process.stderr.write("engram fixture: cannot listen on 127.0.0.1:" + port + ": " + error.message + "\\n");
  process.exit(1);
});
server.listen(port, "127.0.0.1", () => process.stderr.write("engram fixture ${ENGRAM_VERSION} serving on 127.0.0.1:" + port + "\\n"));
for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"]) process.on(signal, () => server.close(() => process.exit(0)));
`;

/**
 * `engram migrate-copy` as src/commands/memory/migration-plan.ts assumes it (the v3.5.2
 * source was not readable here; see that file): no arguments, the default
 * data directory ($HOME/.engram, or ENGRAM_DATA_DIR as Engram reads it), the
 * complete directory copied to a new sibling, only the copy "migrated" (it
 * gains .fixture-migrated), one JSON report on stdout. Knobs, for tests:
 *   FIXTURE_ENGRAM_MIGRATE  fail-before-copy | fail-partial-copy | fail-migrate
 *                           (exit 1, after nothing / half the files / a complete copy);
 *                           wrong-identity | not-a-sibling | backup-exists | garbage
 *                           (exit 0 with a report Shell must not accept);
 *                           writer-active (another client appends to the source's WAL
 *                           during the copy; exit 0 with a good report)
 *   FIXTURE_ENGRAM_PAUSE    a file: after copying half the files, write "paused <pid>"
 *                           there and block until killed
 */
const MIGRATE_JS = `(() => {
const fs = require("node:fs");
const path = require("node:path");
const crypto = require("node:crypto");
const fail = (message) => { process.stderr.write("engram fixture migrate-copy: " + message + "\\n"); process.exit(1); };
const source = process.env.ENGRAM_DATA_DIR || path.join(process.env.HOME || "", ".engram");
if (!fs.existsSync(source)) fail("no store at " + source);
const id = fs.readFileSync(path.join(source, ".instance-id"), "utf8").trim();
const knob = process.env.FIXTURE_ENGRAM_MIGRATE || "";
const tag = crypto.randomBytes(4).toString("hex");
const directory = path.join(path.dirname(source), path.basename(source) + ".migrate-copy-" + tag);
let backup = path.join(path.dirname(source), path.basename(source) + ".backup-" + tag);
if (knob === "fail-before-copy") fail("cannot copy " + source + " (injected)");
const names = fs.readdirSync(source).sort();
fs.mkdirSync(directory);
const half = Math.ceil(names.length / 2);
names.slice(0, half).forEach((n) => fs.cpSync(path.join(source, n), path.join(directory, n), { recursive: true, verbatimSymlinks: true }));
if (process.env.FIXTURE_ENGRAM_PAUSE) {
  fs.writeFileSync(process.env.FIXTURE_ENGRAM_PAUSE, "paused " + process.pid + "\\n");
  setInterval(() => {}, 1000);
  return;
}
if (knob === "writer-active") fs.appendFileSync(path.join(source, "engram.db-wal"), "a frame another client wrote\\n");
if (knob === "fail-partial-copy") fail("copy of " + source + " interrupted (injected)");
names.slice(half).forEach((n) => fs.cpSync(path.join(source, n), path.join(directory, n), { recursive: true, verbatimSymlinks: true }));
if (knob === "fail-migrate") fail("migrating " + directory + " failed (injected)");
fs.writeFileSync(path.join(directory, ".fixture-migrated"), "migrated by the fixture migrate-copy ${ENGRAM_VERSION}\\n");
let reported = directory;
let instance = id;
if (knob === "wrong-identity") { instance = crypto.randomBytes(16).toString("hex"); fs.writeFileSync(path.join(directory, ".instance-id"), instance + "\\n"); }
if (knob === "not-a-sibling") reported = path.join(source, "copy");
if (knob === "backup-exists") { backup = backup + "-taken"; fs.mkdirSync(backup); }
if (knob === "garbage") { process.stdout.write("migrated, probably\\n"); return; }
process.stdout.write(JSON.stringify({ source_dir: source, directory: reported, backup_dir: backup, source_instance_id: id, instance_id: instance }) + "\\n");
})();
`;

/** The fixture's usage, as Engram prints its commands (indented, one a line). */
function usage(migrateCopy: boolean): string {
  const commands = [
    ["serve [port]", "Start HTTP server"],
    ["version", "Print the version"],
    ...(migrateCopy ? [["migrate-copy", "Copy the store to a new sibling and migrate only the copy"]] : []),
    ["help", "Show this help"],
  ];
  return ["engram TEST FIXTURE (not Engram)", "", "Commands:", ...commands.map(([c, w]) => `  ${c!.padEnd(16)}${w}`)].join("\n");
}

/** The text of the fixture `engram` program; `migrateCopy: false` is a core without migrate-copy. */
export function engramScript(options: { migrateCopy?: boolean } = {}): string {
  const migrateCopy = options.migrateCopy ?? true;
  return `#!/bin/sh
# engram TEST FIXTURE for gentle-shell-setup (not Engram). See test/support/engram.ts.
if [ -n "\${FIXTURE_ENGRAM_LOG:-}" ]; then echo "\${1:-} home=\${HOME:-} cwd=$PWD" >> "$FIXTURE_ENGRAM_LOG"; fi
case "\${1:-}" in
  version)
    echo "engram ${ENGRAM_VERSION}"
    ;;
  help|--help|-h)
    cat <<'USAGE'
${usage(migrateCopy)}
USAGE
    ;;${
      migrateCopy
        ? `
  migrate-copy)
    exec node -e '${MIGRATE_JS.replaceAll("'", "'\\''")}'
    ;;`
        : ""
    }
  serve)
    shift
    __ENGRAM_FIXTURE_ARGS=$(node -e 'process.stdout.write(JSON.stringify(process.argv.slice(1)))' -- serve "$@") || exit 70
    export __ENGRAM_FIXTURE_ARGS
    exec node -e '${SERVER_JS.replaceAll("'", "'\\''")}'
    ;;
  *)
    echo "engram fixture: unknown command: \${1:-}" >&2
    echo "usage: engram version | engram serve" >&2
    exit 2
    ;;
esac
`;
}

/** Write the fixture program to `file` (mode 755). */
export async function writeEngramProgram(file: string, options: { migrateCopy?: boolean } = {}): Promise<void> {
  await writeFile(file, engramScript(options), { mode: 0o755 });
  await chmod(file, 0o755);
}

/** Pack `engram` alone into `outFile` (engram_3.5.2_linux_amd64.tar.gz), deterministically. */
export async function packEngramArchive(outFile: string): Promise<void> {
  const stage = await mkdtemp(join(tmpdir(), "gss-engram-"));
  try {
    await writeEngramProgram(join(stage, "engram"));
    await packDeterministic(stage, "engram", outFile);
  } finally {
    await rm(stage, { recursive: true, force: true });
  }
}

export type EngramVariant =
  /** /health ok 3.5.2 and the exact ready /compatibility. */
  | "ready"
  /** A token-protected server: 401 for both. */
  | "unauthorized"
  /** Another service: 404 for both. */
  | "not-found"
  /** Engram 3.3.2: /health ok with version 3.3.2, no /compatibility (404). */
  | "old"
  /** 200 answers that are not JSON. */
  | "malformed"
  /** /compatibility answers, but not ready (status "starting", reuse not authorized). */
  | "not-ready"
  /** Answers only after `delayMs` (default 3000 ms), longer than the 1 s probe. */
  | "slow";

export interface CannedAnswer {
  status: number;
  /** An object is sent as JSON, a string as is. */
  body: unknown;
}

export interface EngramServerOptions {
  variant?: EngramVariant;
  /** 0 (default) for a free port; ENGRAM_DEFAULT_PORT to stand on the default endpoint. */
  port?: number;
  /** Replace an endpoint's answer (after the variant). */
  health?: CannedAnswer;
  compatibility?: CannedAnswer;
  version?: string;
  delayMs?: number;
}

export interface EngramServer {
  url: string;
  port: number;
  instanceId: string;
  runtimeId: string;
  requests: { method: string; path: string; headers: Record<string, string | string[] | undefined> }[];
  stop(): Promise<void>;
}

/** An in-process Engram-like server for one row of the decision table. */
export async function startEngramServer(options: EngramServerOptions = {}): Promise<EngramServer> {
  const variant = options.variant ?? "ready";
  const instanceId = hex32();
  const runtimeId = hex32();
  const requests: EngramServer["requests"] = [];
  const version = options.version ?? (variant === "old" ? "3.3.2" : ENGRAM_VERSION);
  const answers: Record<"health" | "compatibility", CannedAnswer> = {
    health: { status: 200, body: { status: "ok", version, instance_id: instanceId } },
    compatibility: { status: 200, body: readyCompatibility(instanceId, runtimeId) },
  };
  if (variant === "unauthorized") {
    answers.health = answers.compatibility = { status: 401, body: { error: "unauthorized" } };
  } else if (variant === "not-found") {
    answers.health = answers.compatibility = { status: 404, body: "404 page not found\n" };
  } else if (variant === "old") {
    answers.compatibility = { status: 404, body: "404 page not found\n" };
  } else if (variant === "malformed") {
    answers.health = { status: 200, body: "{status: ok" };
    answers.compatibility = { status: 200, body: '{"status":"ready","active_reuse_authorized":tru' };
  } else if (variant === "not-ready") {
    answers.compatibility = {
      status: 200,
      body: { ...readyCompatibility(instanceId, runtimeId), status: "starting", active_reuse_authorized: false },
    };
  }
  if (options.health) answers.health = options.health;
  if (options.compatibility) answers.compatibility = options.compatibility;
  const delay = variant === "slow" ? (options.delayMs ?? 3000) : (options.delayMs ?? 0);

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = new URL(req.url ?? "/", "http://engram").pathname;
    requests.push({ method: req.method ?? "GET", path, headers: req.headers });
    const answer =
      req.method === "GET" && path === "/health"
        ? answers.health
        : req.method === "GET" && path === "/compatibility"
          ? answers.compatibility
          : { status: 404, body: "404 page not found\n" };
    const reply = () => {
      if (res.destroyed) return;
      const text = typeof answer.body === "string" ? answer.body : JSON.stringify(answer.body);
      res.writeHead(answer.status, {
        "content-type": typeof answer.body === "string" ? "text/plain; charset=utf-8" : "application/json",
        "content-length": Buffer.byteLength(text),
      });
      res.end(text);
    };
    if (delay > 0) setTimeout(reply, delay).unref();
    else reply();
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, "127.0.0.1", () => resolve());
  });
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    instanceId,
    runtimeId,
    requests,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** Make a folder holding the fixture `engram` program; returns its path. */
export async function engramProgramIn(dir: string, options: { migrateCopy?: boolean } = {}): Promise<string> {
  await mkdir(dir, { recursive: true });
  const file = join(dir, "engram");
  await writeEngramProgram(file, options);
  return file;
}
