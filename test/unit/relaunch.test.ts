import { EventEmitter } from "node:events";
import { describe, expect, it } from "vitest";
import { HANDOFF, relaunch, relaunchPlan, type RelaunchAdapter, type RelaunchChild } from "../../src/engine/relaunch";
import { exitCode } from "../../src/io/child-signals";

const WIN_LAUNCHER = "C:\\Users\\Ana María\\AppData\\Local\\gentle-shell (100%) & co\\bin\\gentle-shell.cmd";

/** A spawner that records its calls; each child exits (or fails) as `then` says. */
function spawner(then: (child: EventEmitter) => void) {
  const calls: { file: string; args: string[]; options: { env: Record<string, string | undefined>; verbatim: boolean } }[] = [];
  const adapter: RelaunchAdapter = {
    spawn(file, args, options) {
      calls.push({ file, args, options });
      const child = new EventEmitter();
      setImmediate(() => then(child));
      return child as unknown as RelaunchChild;
    },
  };
  return { adapter, calls };
}

describe("reopening the new Shell after Update now", () => {
  it("POSIX with execve: the launcher replaces this process, with the same arguments and the hand-over mark", async () => {
    const plan = relaunchPlan({ platform: "linux", launcher: "/h/.gentle-shell/bin/gentle-shell", args: ["--continue"], env: { HOME: "/h" }, canExec: true });
    expect(plan).toEqual({
      how: "exec",
      file: "/h/.gentle-shell/bin/gentle-shell",
      argv: ["/h/.gentle-shell/bin/gentle-shell", "--continue"],
      env: { HOME: "/h", [HANDOFF]: "1" },
    });
    const execs: unknown[][] = [];
    const failed = await relaunch(plan, {
      execve: ((...a: unknown[]) => {
        execs.push(a);
        throw new Error("ENOEXEC");
      }) as RelaunchAdapter["execve"],
      spawn: () => {
        throw new Error("never spawned");
      },
    });
    expect(execs).toHaveLength(1);
    expect(failed).toEqual({ failed: "ENOEXEC" });
  });

  it("Windows: cmd.exe runs the new .cmd launcher, named only through the hand-over variable, and its exit code is passed on", async () => {
    const plan = relaunchPlan({
      platform: "win32",
      launcher: WIN_LAUNCHER,
      args: ["--resume"],
      env: { ComSpec: "C:\\Windows\\system32\\cmd.exe", Path: "C:\\Windows" },
      canExec: false,
    });
    expect(plan).toEqual({
      how: "spawn",
      file: "C:\\Windows\\system32\\cmd.exe",
      args: ["/d", "/v:off", "/s", "/c", `""%${HANDOFF}%" --resume"`],
      env: { ComSpec: "C:\\Windows\\system32\\cmd.exe", Path: "C:\\Windows", [HANDOFF]: WIN_LAUNCHER },
      verbatim: true,
    });
    // The prefix's %, & and ( never reach cmd.exe's command line.
    expect(plan.how === "spawn" && plan.args.join(" ")).not.toContain("100%");
    const { adapter, calls } = spawner((child) => child.emit("exit", 7, null));
    expect(await relaunch(plan, adapter)).toEqual({ code: 7 });
    expect(calls).toHaveLength(1);
    expect(calls[0]!.options.verbatim).toBe(true);
    expect(calls[0]!.options.env[HANDOFF]).toBe(WIN_LAUNCHER);
  });

  it("Windows: plain startup, and cmd.exe by name when ComSpec is unset or empty", () => {
    for (const env of [{}, { COMSPEC: "" }]) {
      const plan = relaunchPlan({ platform: "win32", launcher: WIN_LAUNCHER, args: [], env, canExec: false });
      expect(plan.how === "spawn" && [plan.file, plan.args.at(-1)]).toEqual(["cmd.exe", `""%${HANDOFF}%""`]);
    }
    const lower = relaunchPlan({ platform: "win32", launcher: WIN_LAUNCHER, args: [], env: { comspec: "D:\\cmd.exe" }, canExec: false });
    expect(lower.how === "spawn" && lower.file).toBe("D:\\cmd.exe");
  });

  it("Windows: an argument cmd.exe would read as syntax is refused, not passed", async () => {
    for (const arg of ["a&b", '"x"', "%PATH%", "-p", "hello world", "^"]) {
      const plan = relaunchPlan({ platform: "win32", launcher: WIN_LAUNCHER, args: [arg], env: {}, canExec: false });
      if (arg === "-p") {
        expect(plan.how).toBe("spawn");
        continue;
      }
      expect(plan.how, arg).toBe("none");
      const { adapter, calls } = spawner(() => undefined);
      expect(await relaunch(plan, adapter)).toEqual({ failed: expect.stringContaining("cannot be handed to cmd.exe") });
      expect(calls).toEqual([]);
    }
  });

  it("a spawned Shell that cannot start, or is killed, is reported as such", async () => {
    const plan = relaunchPlan({ platform: "linux", launcher: "/h/.gentle-shell/bin/gentle-shell", args: [], env: {}, canExec: false });
    expect(plan).toMatchObject({ how: "spawn", file: "/h/.gentle-shell/bin/gentle-shell", args: [], verbatim: false });
    const missing = spawner((child) => child.emit("error", new Error("spawn cmd.exe ENOENT")));
    expect(await relaunch(plan, missing.adapter)).toEqual({ failed: "spawn cmd.exe ENOENT" });
    const killed = spawner((child) => child.emit("exit", null, "SIGINT"));
    expect(await relaunch(plan, killed.adapter)).toEqual({ code: 130 });
    const throws: RelaunchAdapter = {
      spawn: () => {
        throw new Error("EPERM");
      },
    };
    expect(await relaunch(plan, throws)).toEqual({ failed: "EPERM" });
    expect(exitCode(null, null)).toBe(1);
    expect(exitCode(0, null)).toBe(0);
  });
});
