/** Small process and network helpers shared by the fixtures. */
import { spawn, type SpawnOptions } from "node:child_process";
import { createServer } from "node:net";
import { dirname, join } from "node:path";

export interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/**
 * Windows: `npm` and `npx` are .cmd shims there, which Node does not start
 * without a shell; the npm beside the running node is started by its
 * JavaScript entry instead. Elsewhere the command is left as it is.
 */
export function hostCommand(command: string, args: string[]): [string, string[]] {
  if (process.platform === "win32" && (command === "npm" || command === "npx")) {
    return [process.execPath, [join(dirname(process.execPath), "node_modules", "npm", "bin", `${command}-cli.js`), ...args]];
  }
  return [command, args];
}

/** Run a command to completion, capturing its output (never throws for a non-zero exit). */
export function runCommand(command: string, args: string[], options: SpawnOptions & { input?: string; timeoutMs?: number } = {}): Promise<RunResult> {
  const { input, timeoutMs, ...spawnOptions } = options;
  return new Promise((resolve, reject) => {
    const [file, argv] = hostCommand(command, args);
    const child = spawn(file, argv, { ...spawnOptions, stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout!.setEncoding("utf8").on("data", (d: string) => (stdout += d));
    child.stderr!.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    const timer = timeoutMs ? setTimeout(() => child.kill("SIGKILL"), timeoutMs) : undefined;
    child.on("error", (error) => {
      if (timer) clearTimeout(timer);
      reject(error);
    });
    child.on("close", (code, signal) => {
      if (timer) clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
    // A child that exits without reading its input closes the pipe: that is not an error of ours.
    child.stdin!.on("error", (error: NodeJS.ErrnoException) => {
      if (error.code !== "EPIPE") reject(error);
    });
    child.stdin!.end(input ?? "");
  });
}

/** Throw with the output's tail unless the command exited 0. */
export async function runChecked(command: string, args: string[], options: Parameters<typeof runCommand>[2] = {}) {
  const result = await runCommand(command, args, options);
  if (result.code !== 0) {
    const tail = (result.stderr + "\n" + result.stdout).trim().split("\n").slice(-15).join("\n");
    throw new Error(`${command} ${args.join(" ")} exited ${result.code ?? result.signal}:\n${tail}`);
  }
  return result;
}

/** A TCP port that was free on 127.0.0.1 a moment ago. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Poll `url` until it answers 2xx, or fail after `timeoutMs`. `alive` stops early when the server died. */
export async function waitForHttp(url: string, timeoutMs: number, alive: () => string | null = () => null) {
  const deadline = Date.now() + timeoutMs;
  let last = "";
  while (Date.now() < deadline) {
    const dead = alive();
    if (dead) throw new Error(`${url}: the server exited before answering (${dead})`);
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(2000) });
      if (response.ok) return;
      last = `HTTP ${response.status}`;
    } catch (error) {
      last = (error as Error).message;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${url} did not answer within ${timeoutMs} ms (${last})`);
}

/** The npm registry npm's configuration names (the uplink; never written into the repo). */
export async function configuredRegistry(): Promise<string> {
  const { stdout } = await runChecked("npm", ["config", "get", "registry"]);
  const url = stdout.trim();
  if (!/^https?:\/\//.test(url)) throw new Error(`npm config get registry printed ${JSON.stringify(url)}`);
  return url.endsWith("/") ? url : url + "/";
}
