/**
 * Engram startup safety through the installed launcher. The shared server
 * Shell starts binds Engram's own 127.0.0.1:7437, so each launch runs in a
 * network namespace of its own (unshare -n, loopback up): the machine's
 * 7437 is never touched, and nothing outlives the test.
 */
import { describe, expect, it } from "vitest";
import { promises as fs } from "node:fs";
import { join } from "pathe";
import { fixtures } from "../support/context";
import { homeEnv } from "../support/fixtures";
import { GENTLE_PI_MARKER } from "../support/gentle-pi";
import { runCommand } from "../support/proc";
import { installed } from "../support/installed";

const f = fixtures();

/**
 * Launch `gentle-shell -p hi` in a fresh network namespace (no model reachable there, so Pi stops after
 * loading gentle-pi, whose fixture records the environment it got), then report and stop whatever
 * answers on 127.0.0.1:7437 inside it.
 */
async function launchIsolated(home: string, extraEnv: NodeJS.ProcessEnv = {}) {
  const script = `
set -u
ip link set lo up
"$GS" -p hi >/dev/null 2>"$HOME/launch.err"
echo "launch=$?"
info=$(curl -fsS --max-time 2 http://127.0.0.1:7437/__fixture 2>/dev/null) && printf 'server=%s\\n' "$info"
compat=$(curl -fsS --max-time 2 http://127.0.0.1:7437/compatibility 2>/dev/null) && printf 'compat=%s\\n' "$compat"
pid=$(printf '%s' "\${info:-}" | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{try{process.stdout.write(String(JSON.parse(s).pid))}catch{}})')
[ -n "$pid" ] && kill "$pid"
exit 0
`;
  const r = await runCommand("unshare", ["-n", "bash", "-c", script], {
    env: homeEnv(home, { GS: join(home, ".gentle-shell", "bin", "gentle-shell"), PATH: process.env.PATH, GH_TOKEN: "gh-secret", ...extraEnv }),
    cwd: home,
  });
  expect(r.code, r.stderr).toBe(0);
  const line = (key: string) =>
    r.stdout
      .split("\n")
      .find((l) => l.startsWith(key + "="))
      ?.slice(key.length + 1) ?? null;
  const marker = JSON.parse(await fs.readFile(join(home, ".gentle-shell", "agent", GENTLE_PI_MARKER), "utf8"));
  return {
    server: line("server") ? JSON.parse(line("server")!) : null,
    compat: line("compat") ? JSON.parse(line("compat")!) : null,
    env: marker.env as Record<string, string>,
    stderr: await fs.readFile(join(home, "launch.err"), "utf8"),
  };
}

describe.concurrent("Engram startup safety through the launcher", () => {
  it("starts the verified bundled core as the shared server when nothing listens, and gives Pi its URL and the guard", async () => {
    const { home, output } = await installed(f);
    // The install's setup step publishes the verified core; it never starts a server.
    expect(output).toContain("✔ setup: ");
    const prefix = join(home, ".gentle-shell");
    const run = await launchIsolated(home, { ENGRAM_HTTP_TOKEN: "never-inherited" });
    expect(run.server, run.stderr).not.toBeNull();
    expect(run.compat.status).toBe("ready");
    expect(run.env.ENGRAM_BIN).toBe(join(prefix, "bin", "engram-guard"));
    expect(run.env.ENGRAM_URL).toBe("http://127.0.0.1:7437");
    // Plain `engram serve`, from the home folder, without the user's ENGRAM_* or GitHub tokens.
    expect(run.server.argv).toEqual(["serve"]);
    expect(run.server.cwd).toBe(home);
    expect(run.server.env.ENGRAM_NO_UPDATE_CHECK).toBe("1");
    expect(Object.keys(run.server.env).filter((k: string) => k.startsWith("ENGRAM_") && k !== "ENGRAM_NO_UPDATE_CHECK")).toEqual([]);
    expect(run.server.env).not.toHaveProperty("GH_TOKEN");
  });

  it("keeps memory off with the guard and says why when the bundled core is missing", async () => {
    const { home, output } = await installed(f, { extra: ["--no-setup"] });
    expect(output).toContain("- setup: skipped");
    const run = await launchIsolated(home);
    expect(run.server).toBeNull();
    expect(run.env.ENGRAM_BIN).toBe(join(home, ".gentle-shell", "bin", "engram-guard"));
    expect(run.env).not.toHaveProperty("ENGRAM_URL");
    expect(run.stderr).toMatch(/gentle-shell setup/);
    // A provider that runs the guard with Pi's environment is told this launch's reason, word for word.
    const notice = run.stderr.split("\n").find((l) => l.includes("gentle-shell setup"))!;
    expect(run.env.ENGRAM_STARTUP_NOTICE).toBe(notice);
    const guard = await runCommand(run.env.ENGRAM_BIN!, ["mcp"], { env: run.env, cwd: home });
    expect(guard.code).toBe(78);
    expect(guard.stderr).toBe(`${notice}\n`);
  });

  it("never probes or starts anything for an explicit selection, and keeps it", async () => {
    const { home, output } = await installed(f);
    // The install's setup step publishes the verified core; it never starts a server.
    expect(output).toContain("✔ setup: ");
    const run = await launchIsolated(home, { ENGRAM_URL: "http://127.0.0.1:9999" });
    expect(run.server).toBeNull();
    expect(run.env.ENGRAM_URL).toBe("http://127.0.0.1:9999");
    expect(run.env.ENGRAM_BIN).toBe(join(home, ".gentle-shell", "runtime", "engram-3.5.2", "engram"));
    expect(run.env.ENGRAM_STARTUP_POLICY).toBe("disabled");
  });
});
