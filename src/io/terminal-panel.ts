/**
 * A panel on the terminal that the keys move through (the startup update
 * offer's): drawn on stdout, redrawn in place after each key, with stdin in
 * raw mode while it shows, so a Ctrl+C typed as soon as it appears is a key,
 * not a signal. What the rows say and what each key means are the caller's
 * (pure: src/core/offer-rules.ts); this is only the terminal's part. End of
 * input and a SIGINT sent by another process finish it too. The terminal is
 * the Host's (./host.ts `panel`): its stdin, and its stdout's writer, which
 * masks what the panel draws as it masks every line.
 */
export interface PanelKeys<R> {
  /** The panel's lines for the selected row. */
  lines(selected: number): string[];
  /** A key (a chunk of raw input): a new selection, a result, or null to ignore it. */
  press(data: string, selected: number): { selected: number } | { result: R } | null;
  /** What end of input means, and what a SIGINT from elsewhere means. */
  onEnd: R;
  onSignal: R;
}

/** The terminal a panel is drawn on: keys from `input`, the drawing through `write`. */
export interface PanelTerminal {
  input: NodeJS.ReadStream;
  write(text: string): void;
}

export function terminalPanel<R>(keys: PanelKeys<R>, initial: number, terminal: PanelTerminal): Promise<R> {
  const out = terminal;
  const stdin = terminal.input;
  let selected = initial;
  let drawn = 0;
  const draw = () => {
    if (drawn) out.write(`\u001b[${drawn}A\u001b[0J`);
    const lines = keys.lines(selected);
    out.write(`${lines.join("\n")}\n`);
    drawn = lines.length;
  };
  return new Promise((resolve) => {
    const finish = (result: R) => {
      process.off("SIGINT", onSigint);
      stdin.off("data", onData);
      stdin.off("end", onEnd);
      if (stdin.isTTY) stdin.setRawMode(false);
      stdin.pause();
      resolve(result);
    };
    const onData = (chunk: Buffer) => {
      const r = keys.press(chunk.toString("utf8"), selected);
      if (!r) return;
      if ("result" in r) return finish(r.result);
      selected = r.selected;
      draw();
    };
    const onEnd = () => finish(keys.onEnd);
    const onSigint = () => finish(keys.onSignal);
    if (stdin.isTTY) stdin.setRawMode(true);
    process.once("SIGINT", onSigint);
    stdin.on("data", onData);
    stdin.on("end", onEnd);
    stdin.resume();
    draw();
  });
}
