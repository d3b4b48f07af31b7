/** The bench's profile readers (bench/profile.mjs): self time per function from V8's .cpuprofile, and strace -c's summary rows. */
import { describe, expect, it } from "vitest";
import { selfTimes, straceRows } from "../../bench/profile.mjs";

describe("the bench's profile readers", () => {
  it("sums self time per function and place, from the samples' mean interval", () => {
    const frame = (functionName: string, url: string, lineNumber: number) => ({ functionName, url, lineNumber, columnNumber: 0, scriptId: "1" });
    const profile = {
      startTime: 0,
      endTime: 10_000,
      samples: [1, 2, 2, 3, 3, 3, 3, 3, 3, 3],
      nodes: [
        { id: 1, callFrame: frame("(idle)", "", -1), hitCount: 1 },
        { id: 2, callFrame: frame("update", "node:internal/crypto/hash", 145), hitCount: 2 },
        { id: 3, callFrame: frame("", "file:///repo/src/io/archive.ts", 9), hitCount: 4 },
        { id: 4, callFrame: frame("", "file:///repo/src/io/archive.ts", 9), hitCount: 3 },
      ],
    };
    const { total, rows } = selfTimes(profile, "/repo");
    expect(total).toBeCloseTo(10);
    expect(rows[0]).toEqual({ name: "(anonymous)", where: "src/io/archive.ts:10", ms: 7 });
    expect(rows[1]).toEqual({ name: "update", where: "node:internal/crypto/hash:146", ms: 2 });
    expect(rows[2]).toEqual({ name: "(idle)", where: "", ms: 1 });
  });

  it("reads strace -c's rows, with and without errors, most calls first, and not its total", () => {
    const text = [
      "% time     seconds  usecs/call     calls    errors syscall",
      "------ ----------- ----------- --------- --------- ----------------",
      " 60.00    0.600000          10     60000      3000 futex",
      " 30.00    0.030000           2     15000           write",
      "  1.00    0.001000           1       900        90 openat",
      "------ ----------- ----------- --------- --------- ----------------",
      "100.00    1.000000          13     75900      3090 total",
    ].join("\n");
    expect(straceRows(text)).toEqual([
      { syscall: "futex", seconds: 0.6, calls: 60000, errors: 3000 },
      { syscall: "write", seconds: 0.03, calls: 15000, errors: 0 },
      { syscall: "openat", seconds: 0.001, calls: 900, errors: 90 },
    ]);
  });
});
