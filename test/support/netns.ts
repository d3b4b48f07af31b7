/**
 * A network namespace of a test's own (root; iproute2, which .ci/system-tools
 * installs), joined to this machine by one veth pair: the test's servers
 * listen on `hostIp`, and what runs inside (`exec`) reaches nothing else.
 * `ip netns exec` mounts /etc/netns/<name>/hosts over /etc/hosts, so the names
 * given resolve to `hostIp` in there, and /etc/netns/<name>/ssl over /etc/ssl,
 * so the system certificate store in there holds only the CA given.
 * A command that fails fails the test: nothing here skips.
 */
import { mkdir, rm, writeFile } from "node:fs/promises";
import { connect, createServer, type Socket } from "node:net";
import { join } from "pathe";
import { type RunResult, runChecked, runCommand } from "./proc";

export interface Netns {
  name: string;
  /** This machine's end of the veth pair: where the test's servers listen. */
  hostIp: string;
  /** Run `command` inside, with exactly `env` (nothing of this process's environment). */
  exec(command: string, args: readonly string[], options: { env: NodeJS.ProcessEnv; cwd?: string; input?: string }): Promise<RunResult>;
  /** A port on `hostIp` that carries each connection on to `target` on this machine (a loopback server), and its URL. */
  forward(target: URL): Promise<{ url: string; close(): Promise<void> }>;
  close(): Promise<void>;
}

export async function makeNetns(options: { names: readonly string[]; caPem: string }): Promise<Netns> {
  const tag = `${process.pid % 100_000}`;
  const name = `gss-rh-${tag}`;
  const [outside, inside] = [`gssrh${tag}a`, `gssrh${tag}b`];
  const net = `10.77.${process.pid % 250}`;
  const hostIp = `${net}.1`;
  const etc = join("/etc/netns", name);
  const ip = (...args: string[]) => runChecked("ip", args);
  await ip("netns", "add", name);
  try {
    await ip("link", "add", outside, "type", "veth", "peer", "name", inside);
    await ip("link", "set", inside, "netns", name);
    await ip("addr", "add", `${hostIp}/24`, "dev", outside);
    await ip("link", "set", outside, "up");
    await ip("-n", name, "addr", "add", `${net}.2/24`, "dev", inside);
    await ip("-n", name, "link", "set", inside, "up");
    await ip("-n", name, "link", "set", "lo", "up");
    await mkdir(join(etc, "ssl", "certs"), { recursive: true });
    await writeFile(join(etc, "hosts"), `127.0.0.1 localhost\n${options.names.map((n) => `${hostIp} ${n}`).join("\n")}\n`);
    await writeFile(join(etc, "ssl", "certs", "ca-certificates.crt"), options.caPem);
  } catch (error) {
    await runCommand("ip", ["netns", "del", name]);
    await rm(etc, { recursive: true, force: true });
    throw error;
  }
  return {
    name,
    hostIp,
    exec: (command, args, run) =>
      runCommand(
        "ip",
        ["netns", "exec", name, "env", "-i", ...Object.entries(run.env).flatMap(([k, v]) => (v === undefined ? [] : [`${k}=${v}`])), command, ...args],
        {
          env: { PATH: process.env.PATH },
          cwd: run.cwd,
          input: run.input,
        },
      ),
    async forward(target) {
      const open = new Set<Socket>();
      const server = createServer((socket) => {
        open.add(socket);
        socket.on("close", () => open.delete(socket));
        const upstream = connect(Number(target.port), target.hostname);
        socket.pipe(upstream).pipe(socket);
        const end = () => {
          socket.destroy();
          upstream.destroy();
        };
        socket.on("error", end);
        upstream.on("error", end);
      });
      await new Promise<void>((resolve, reject) => {
        server.once("error", reject);
        server.listen(0, hostIp, () => resolve());
      });
      const port = (server.address() as { port: number }).port;
      return {
        url: `${target.protocol}//${hostIp}:${port}${target.pathname}`,
        close: () =>
          new Promise<void>((resolve) => {
            server.close(() => resolve());
            for (const socket of open) socket.destroy();
          }),
      };
    },
    async close() {
      await runCommand("ip", ["netns", "del", name]);
      await runCommand("ip", ["link", "del", outside]);
      await rm(etc, { recursive: true, force: true });
    },
  };
}
