/**
 * The confirm question (src/io/confirm.ts, issue 48): each of the Host's five
 * replies read one way, the empty answer taking the question's default.
 */
import { describe, expect, it } from "vitest";
import { confirm } from "../../src/io/confirm";
import type { Reply } from "../../src/io/prompt";

const replying = (reply: Reply) => {
  const asked: Array<[string, string | undefined]> = [];
  const ask = async (q: string, on?: "stdout" | "stderr") => {
    asked.push([q, on]);
    return reply;
  };
  return { asked, host: { ask } };
};

describe("confirm", () => {
  it("reads y, yes and YES as yes, and anything else as no", async () => {
    for (const answer of ["y", " yes ", "YES"]) expect(await confirm(replying({ answer }).host, "Go? [y/N] ", "no")).toBe("yes");
    for (const answer of ["n", "nope", "yess"]) expect(await confirm(replying({ answer }).host, "Go? [Y/n] ", "yes")).toBe("no");
  });

  it("an empty answer takes the default", async () => {
    expect(await confirm(replying({ answer: "" }).host, "Proceed? [Y/n] ", "yes")).toBe("yes");
    expect(await confirm(replying({ answer: "  " }).host, "Remove? [y/N] ", "no")).toBe("no");
  });

  it("no terminal, end of input and Ctrl+C are outcomes of their own", async () => {
    expect(await confirm(replying({ noTerminal: true }).host, "Go? [Y/n] ", "yes")).toBe("no terminal");
    expect(await confirm(replying({ end: true }).host, "Go? [Y/n] ", "yes")).toBe("no answer");
    expect(await confirm(replying({ interrupt: true }).host, "Go? [Y/n] ", "yes")).toBe("interrupted");
  });

  it("asks the question once, on the stream named", async () => {
    const r = replying({ answer: "y" });
    await confirm(r.host, "Remove Gentle Shell? [y/N] ", "no", "stderr");
    expect(r.asked).toEqual([["Remove Gentle Shell? [y/N] ", "stderr"]]);
  });
});
