import type { ChildProcess } from "node:child_process";
import { EventEmitter } from "node:events";
import { describe, expect, it } from "vitest";
import { childSignalPlan, shareSignals } from "../../src/io/child-signals";

function fakeChild() {
  const kills: string[] = [];
  const child = Object.assign(new EventEmitter(), { kill: (s: string) => kills.push(s) });
  return { child: child as unknown as ChildProcess, kills };
}

describe("signals while a child shares our terminal (issue 24, defect 11)", () => {
  it("Windows: Ctrl+C and Ctrl+Break are never passed on (that is TerminateProcess), only ignored until the child exits", () => {
    expect(childSignalPlan("win32")).toEqual({ forward: [], ignore: ["SIGINT", "SIGBREAK"] });
    const before = process.listenerCount("SIGINT");
    const { child, kills } = fakeChild();
    shareSignals(child, "win32");
    expect(process.listenerCount("SIGINT")).toBe(before + 1);
    process.listeners("SIGINT").at(-1)?.("SIGINT");
    expect(kills).toEqual([]);
    child.emit("exit", 0, null);
    expect(process.listenerCount("SIGINT")).toBe(before);
  });

  it("POSIX: SIGINT, SIGTERM and SIGHUP are passed on, until the child exits or fails to start", () => {
    expect(childSignalPlan("linux")).toEqual({ forward: ["SIGINT", "SIGTERM", "SIGHUP"], ignore: [] });
    const before = process.listenerCount("SIGTERM");
    const { child, kills } = fakeChild();
    shareSignals(child, "linux");
    process.listeners("SIGTERM").at(-1)?.("SIGTERM");
    expect(kills).toEqual(["SIGTERM"]);
    child.emit("error", new Error("ENOENT"));
    expect(process.listenerCount("SIGTERM")).toBe(before);
  });
});
