/**
 * One question on the terminal, one line back. End of input and Ctrl+C are
 * answers of their own, so each caller decides what they mean (the spec
 * reads both as No for the migration's question; self-uninstall aborts on
 * Ctrl+C). Without a terminal nothing is asked. The streams are the Host's
 * (./host.ts): this file names none of the process's.
 */

export type Reply = { answer: string } | { end: true } | { interrupt: true } | { noTerminal: true };

export function askLine(question: string, input: NodeJS.ReadStream, output: NodeJS.WritableStream): Promise<Reply> {
  if (!input.isTTY) return Promise.resolve({ noTerminal: true });
  // node:readline is loaded for a question only, not by every start of the engine.
  const { createInterface } = process.getBuiltinModule("node:readline");
  const rl = createInterface({ input, output });
  return new Promise((resolve) => {
    let settled = false;
    const settle = (reply: Reply) => {
      if (settled) return;
      settled = true;
      rl.close();
      resolve(reply);
    };
    rl.on("SIGINT", () => {
      output.write("\n");
      settle({ interrupt: true });
    });
    rl.on("close", () => settle({ end: true }));
    rl.question(question, (answer) => settle({ answer }));
  });
}
