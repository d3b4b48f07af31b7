/**
 * Download progress: one bar per download (cli-progress) when stderr is a
 * terminal, plain lines otherwise (a start line and an outcome line per
 * download, so logs of CI runs and pipes stay readable): also under NO_COLOR,
 * CI and TERM=dumb. --quiet shows none. The Host (./host.ts) hands bars its
 * stderr's writer, which masks and guards what they draw as it does every line.
 */
import { fancyOutput } from "../core/terminal-style";
import type cliProgress from "cli-progress";

export interface DownloadProgress {
  /** Bytes received so far, and the total when known. */
  update(received: number, total: number | null): void;
  /** The download is verified. */
  done(): void;
  /**
   * The download gave up (the error is reported by the caller): "download" when the bytes did not all arrive,
   * "check" when they did and do not match the pin (its progress line must not blame the network).
   */
  fail(why?: FailedAt): void;
}

export type FailedAt = "download" | "check";

export interface ProgressReporter {
  start(name: string): DownloadProgress;
  /** Ends every bar (call once all downloads settled). */
  stop(): void;
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

/**
 * Plain lines through `line`: "downloading X" and "X: 12.3 MiB verified in 1.2 s", or "X: download failed after 1.0 MiB",
 * or "X: verification failed after 12.3 MiB (...)".
 */
export function lineProgress(line: (text: string) => void, now: () => number = Date.now): ProgressReporter {
  return {
    start(name) {
      const started = now();
      let received = 0;
      let ended = false;
      line(`downloading ${name}`);
      return {
        update(value) {
          received = value;
        },
        done() {
          if (ended) return;
          ended = true;
          line(`${name}: ${formatBytes(received)} verified in ${((now() - started) / 1000).toFixed(1)} s`);
        },
        fail(why = "download") {
          if (ended) return;
          ended = true;
          line(
            why === "check"
              ? `${name}: verification failed after ${formatBytes(received)} (the bytes do not match the pin)`
              : `${name}: download failed after ${formatBytes(received)}`,
          );
        },
      };
    },
    stop() {},
  };
}

/**
 * What bars are drawn on: a terminal's stream, or the Host's writer for one. cli-progress reads `isTTY` and `columns`
 * and writes (itself, and through readline's cursor helpers, which write escapes to the stream).
 */
export interface BarStream {
  readonly isTTY?: boolean;
  readonly columns?: number;
  write(text: string, done?: () => void): boolean;
}

/** Bars on `stream` (a terminal). */
export function barProgress(stream: BarStream): ProgressReporter {
  let multi: cliProgress.MultiBar | null = null;
  // cli-progress is loaded with the first bar, not by every start of the engine that never shows one.
  const bars = () => {
    if (multi) return multi;
    const { MultiBar, Presets } = require("cli-progress") as typeof cliProgress;
    multi = new MultiBar(
      {
        // Only write, isTTY and columns are used of it (BarStream).
        stream: stream as unknown as NodeJS.WritableStream,
        format: "{name} [{bar}] {percentage}% {got}{of} {status}",
        barsize: 30,
        hideCursor: true,
        clearOnComplete: false,
        stopOnComplete: false,
        fps: 8,
        forceRedraw: false,
      },
      Presets.shades_classic,
    );
    return multi;
  };
  return {
    start(name) {
      const bar = bars().create(1, 0, { name, got: formatBytes(0), of: "", status: "" });
      let knownTotal = false;
      return {
        update(received, total) {
          if (total !== null && total > 0 && !knownTotal) {
            knownTotal = true;
            bar.setTotal(total);
          }
          bar.update(knownTotal ? received : 0, { got: formatBytes(received), of: knownTotal ? ` of ${formatBytes(total!)}` : "" });
        },
        done() {
          bar.update(bar.getTotal(), { status: "verified" });
        },
        fail(why = "download") {
          bar.update({ status: why === "check" ? "verification failed" : "failed" });
        },
      };
    },
    stop() {
      multi?.stop();
      multi = null;
    },
  };
}

/** No progress at all (--quiet): the caller still reports each failure. */
export const silentProgress: ProgressReporter = {
  start: () => ({ update() {}, done() {}, fail() {} }),
  stop() {},
};

/** Bars when `stream` may have them (fancyOutput), plain lines through `line` otherwise, nothing when quiet. */
export function progressFor(stream: BarStream, line: (text: string) => void, env: Record<string, string | undefined>, quiet = false): ProgressReporter {
  if (quiet) return silentProgress;
  return fancyOutput(stream, env) ? barProgress(stream) : lineProgress(line);
}
