// The Windows user Path as text (spec: "PATH", "Registry (Windows)").
import { describe, expect, it } from "vitest";
import { userPathAppend, userPathHolds, userPathRemove } from "../../../src/path/user-path";

describe("user Path values", () => {
  it("append keeps every other entry as written and adds one ';'", () => {
    expect(userPathAppend("%USERPROFILE%\\go\\bin;C:\\x", "C:\\b")).toBe("%USERPROFILE%\\go\\bin;C:\\x;C:\\b");
    expect(userPathAppend("C:\\x;", "C:\\b")).toBe("C:\\x;C:\\b");
    expect(userPathAppend("", "C:\\b")).toBe("C:\\b");
  });
  it("remove drops only our entry, in any case and with a trailing backslash", () => {
    expect(userPathRemove("%A%\\x;c:\\B\\;C:\\y", "C:\\b")).toBe("%A%\\x;C:\\y");
    expect(userPathRemove(userPathAppend("%A%;C:\\y", "C:\\b"), "C:\\b")).toBe("%A%;C:\\y");
    expect(userPathRemove("C:\\b", "C:\\b")).toBe("");
  });
  it("holds compares case-insensitively, ignores trailing backslashes and empty entries", () => {
    expect(userPathHolds(";;C:\\B\\\\", "c:\\b")).toBe(true);
    expect(userPathHolds("C:\\bin2", "C:\\bin")).toBe(false);
  });
});
