/**
 * The --source an install's plan names (install --json's `source`), masked as
 * the whole URL it is: a secret query value or a password is hidden whole,
 * whatever it holds, a space included (issue 39, defect 2). A folder source
 * is shown as it is, under ~.
 */
import { describe, expect, it } from "vitest";
import { recordPlan } from "../../src/cli/install-json";
import type { Host } from "../../src/io/host";

function planned(source: string, home = "/home/ana"): unknown {
  const fields: Record<string, unknown> = {};
  const host = { document: { fields }, home } as unknown as Host;
  recordPlan(host, { prefix: `${home}/.gentle-shell`, source, dryRun: true, plan: [] });
  return fields.source;
}

describe("install --json's source", () => {
  it.each([
    ["https://mirror.example/dl/?token=AB CD", "AB", "CD"],
    ['https://mirror.example/dl/?token=AB"CD', "AB", "CD"],
    ["https://carol:SEC RET@mirror.example/dl/", "SEC", "RET"],
    ["https://carol:p@ss@mirror.example/dl/", "p@", "ss"],
  ])("hides every part of the secret in %s", (source, first, second) => {
    const shown = String(planned(source));
    expect(shown).toContain("mirror.example");
    expect(shown).not.toContain(first);
    expect(shown).not.toContain(second);
  });

  it("shows a folder source as it is, under ~", () => {
    expect(planned("/home/ana/usb stick/bundle")).toBe("~/usb stick/bundle");
  });
});
