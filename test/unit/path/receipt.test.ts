// The PATH entry's receipt (spec: "PATH", "Persisted receipt", "Reading it
// back"): only what this prefix writes is valid.
import { describe, expect, it } from "vitest";
import { checkReceipt, receiptJson, type PathReceipt, type ReceiptContext } from "../../../src/path/receipt";
import { posixLine } from "../../../src/path/shells";
import { BIN, FISH, H, LAUNCHER, LINE } from "./facts";

describe("receipts: only what this prefix writes", () => {
  const ctx: ReceiptContext = { home: H, env: {}, platform: "linux", bin: BIN, launcher: LAUNCHER };
  const profile = (path: string, line: string): Extract<PathReceipt, { kind: "profile" }> => ({
    schema: 1,
    kind: "profile",
    applied: true,
    path,
    line,
    create: false,
    separator: "\n",
  });
  const roundTrip = (r: PathReceipt, c: ReceiptContext = ctx) => checkReceipt(receiptJson(r), c);

  it("the file holds schema, kind and the kind's fields only", () => {
    expect(JSON.parse(receiptJson(profile(`${H}/.bashrc`, LINE)))).toEqual({
      schema: 1,
      kind: "profile",
      path: `${H}/.bashrc`,
      line: LINE,
      create: false,
      separator: "\n",
    });
  });

  it.each<[string, PathReceipt, ReceiptContext?]>([
    ["a line in ~/.bashrc", profile(`${H}/.bashrc`, LINE)],
    ["a line in ~/.zshrc", profile(`${H}/.zshrc`, LINE)],
    ["a line in ~/.profile, created", { ...profile(`${H}/.profile`, LINE), create: true, separator: "" }],
    ["the fish line in the fish file", profile(`${H}/.config/fish/conf.d/gentle-shell.fish`, FISH)],
    ["a line in $ZDOTDIR/.zshrc", profile("/z/.zshrc", LINE), { ...ctx, env: { ZDOTDIR: "/z" } }],
    ["a line in a macOS login file", profile(`${H}/.bash_login`, LINE), { ...ctx, platform: "darwin" }],
    ["our link", { schema: 1, kind: "link", applied: true, path: `${H}/.local/bin/gentle-shell`, target: LAUNCHER }],
    [
      "our user Path entry",
      { schema: 1, kind: "registry", applied: true, key: "HKCU\\Environment", name: "Path", entry: "C:\\P\\bin" },
      { home: "C:/Users/u", env: {}, platform: "win32", bin: "C:/P/bin", launcher: "C:/P/bin/gentle-shell.cmd" },
    ],
  ])("round trip: %s", (_n, receipt, c) => {
    expect(roundTrip(receipt, c)).toEqual({ status: "valid", receipt });
  });

  it.each<[string, PathReceipt, ReceiptContext?]>([
    ["a file pathEntryPlan never chooses (~/.zshenv)", profile(`${H}/.zshenv`, LINE)],
    ["the fish line outside the fish file", profile(`${H}/.bashrc`, FISH)],
    ["the sh line in the fish file", profile(`${H}/.config/fish/conf.d/gentle-shell.fish`, LINE)],
    ["another bin's line", profile(`${H}/.bashrc`, posixLine("/opt/x/bin"))],
    ["~/.bashrc on macOS", profile(`${H}/.bashrc`, LINE), { ...ctx, platform: "darwin" }],
    ["~/.zshrc when ZDOTDIR now points elsewhere", profile(`${H}/.zshrc`, LINE), { ...ctx, env: { ZDOTDIR: "/z" } }],
    ["a link elsewhere", { schema: 1, kind: "link", applied: true, path: `${H}/bin/gentle-shell`, target: LAUNCHER }],
    ["a link to another target", { schema: 1, kind: "link", applied: true, path: `${H}/.local/bin/gentle-shell`, target: "/usr/bin/gentle-shell" }],
    ["a registry receipt outside Windows", { schema: 1, kind: "registry", applied: true, key: "HKCU\\Environment", name: "Path", entry: BIN }],
  ])("refused, and named for manual removal: %s", (_n, receipt, c) => {
    const check = roundTrip(receipt, c);
    expect(check.status).toBe("invalid");
    expect(check.status === "invalid" && check.manual).toBeTruthy();
  });

  it("names the file of a refused line receipt with ~", () => {
    const check = roundTrip(profile(`${H}/.zshenv`, LINE));
    expect(check).toMatchObject({ status: "invalid", manual: `the line ${JSON.stringify(LINE)} in ~/.zshenv` });
  });

  it.each([
    ["not JSON", "{"],
    ["an array", "[]"],
    ["schema 2", JSON.stringify({ schema: 2, kind: "link", path: `${H}/.local/bin/gentle-shell`, target: LAUNCHER })],
    ["an unknown kind", JSON.stringify({ schema: 1, kind: "alias", path: "x" })],
    ["a missing field", JSON.stringify({ schema: 1, kind: "profile", path: `${H}/.bashrc`, line: LINE, create: false })],
    ["an extra field", JSON.stringify({ schema: 1, kind: "link", path: `${H}/.local/bin/gentle-shell`, target: LAUNCHER, applied: false })],
    ["a bad separator", JSON.stringify({ schema: 1, kind: "profile", path: `${H}/.bashrc`, line: LINE, create: false, separator: "\r\n" })],
    ["create as text", JSON.stringify({ schema: 1, kind: "profile", path: `${H}/.bashrc`, line: LINE, create: "no", separator: "" })],
  ])("malformed: %s", (_n, text) => {
    expect(checkReceipt(text, ctx).status).toBe("invalid");
  });

  it("registry: another key, or another folder, is refused", () => {
    const win: ReceiptContext = { home: "C:/Users/u", env: {}, platform: "win32", bin: "C:/P/bin", launcher: "C:/P/bin/gentle-shell.cmd" };
    const r = { schema: 1, kind: "registry", applied: true, key: "HKLM\\Environment", name: "Path", entry: "C:\\P\\bin" } as const;
    expect(roundTrip(r, win).status).toBe("invalid");
    expect(roundTrip({ ...r, key: "HKCU\\Environment", entry: "C:\\Q\\bin" }, win).status).toBe("invalid");
    expect(roundTrip({ ...r, key: "HKCU\\Environment", entry: "c:\\p\\BIN\\" }, win).status).toBe("valid");
  });
});
