/**
 * Download progress (src/io/progress.ts): a bar per download on a terminal's
 * stream, plain lines on a dumb terminal or a pipe, never both.
 */
import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { progressFor } from "../../src/io/progress";

describe("progress", () => {
  function fakeStream(tty: boolean) {
    let text = "";
    const stream = new Writable({
      write(chunk, _enc, done) {
        text += String(chunk);
        done();
      },
    }) as Writable & { isTTY?: boolean; columns?: number; cursorTo?: unknown; clearLine?: unknown; moveCursor?: unknown };
    stream.isTTY = tty;
    stream.columns = 120;
    // What readline's helpers call on a terminal stream.
    const callBack = (cb?: () => void) => {
      cb?.();
      return true;
    };
    stream.cursorTo = (_x: number, _y?: number, cb?: () => void) => callBack(cb);
    stream.clearLine = (_d: number, cb?: () => void) => callBack(cb);
    stream.moveCursor = (_x: number, _y: number, cb?: () => void) => callBack(cb);
    return { stream: stream as unknown as NodeJS.WriteStream, text: () => text };
  }

  it("draws a bar per download on a terminal, and writes no plain lines there", async () => {
    const term = fakeStream(true);
    const lines: string[] = [];
    const progress = progressFor(term.stream, (l) => lines.push(l), { TERM: "xterm" });
    const a = progress.start("Node 24.21.0 (linux-x64)");
    const b = progress.start("pnpm 11.1.1");
    a.update(512 * 1024, 1024 * 1024);
    b.update(10, null);
    a.done();
    b.fail();
    progress.stop();
    expect(lines).toEqual([]);
    expect(term.text()).toContain("Node 24.21.0 (linux-x64)");
    expect(term.text()).toContain("pnpm 11.1.1");
    expect(term.text()).toContain("verified");
    expect(term.text()).toContain("failed");
  });

  it("writes plain lines on a dumb terminal", () => {
    const term = fakeStream(true);
    const lines: string[] = [];
    progressFor(term.stream, (l) => lines.push(l), { TERM: "dumb" }).start("pnpm 11.1.1");
    expect(lines).toEqual(["downloading pnpm 11.1.1"]);
    expect(term.text()).toBe("");
  });

  it("writes plain lines when the stream is not a terminal", () => {
    const pipe = fakeStream(false);
    const lines: string[] = [];
    const progress = progressFor(pipe.stream, (l) => lines.push(l), { TERM: "xterm" });
    const a = progress.start("pnpm 11.1.1");
    a.update(2048, 4096);
    a.fail();
    progress.stop();
    expect(pipe.text()).toBe("");
    expect(lines).toEqual(["downloading pnpm 11.1.1", "pnpm 11.1.1: download failed after 2.0 KiB"]);
  });
});
