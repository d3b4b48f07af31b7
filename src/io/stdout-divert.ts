/**
 * --json (issue 14): stdout carries one document and nothing else. While it
 * is diverted, every write of ours to stdout (plan lines, step lines,
 * download progress) goes to stderr instead, and children that would
 * inherit our stdout get stderr (stdoutForChild), so no path can slip a line
 * in front of the document. `write` reaches the real stdout.
 */
let diverted = false;

export interface Diversion {
  /** Write to the real stdout. */
  write(text: string): Promise<void>;
  /** Put stdout back. */
  restore(): void;
}

export function divertStdout(): Diversion {
  const real = process.stdout.write;
  const toStderr = ((chunk: unknown, ...rest: unknown[]) =>
    (process.stderr.write as (...a: unknown[]) => boolean)(chunk, ...rest)) as typeof process.stdout.write;
  process.stdout.write = toStderr;
  diverted = true;
  return {
    write: (text) => new Promise((done) => (real as (chunk: string, callback: () => void) => boolean).call(process.stdout, text, () => done())),
    restore: () => {
      if (process.stdout.write === toStderr) process.stdout.write = real;
      diverted = false;
    },
  };
}

/** What a child that shares our terminal gets as its stdout: ours, or stderr's descriptor while stdout is diverted. */
export function stdoutForChild(): "inherit" | 2 {
  return diverted ? 2 : "inherit";
}
