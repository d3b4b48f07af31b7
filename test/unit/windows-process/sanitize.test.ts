/**
 * What the failure's captured streams keep (spec: "Windows prerequisite
 * failure diagnostics"): lines naming a path, a SID, an encoded ACL or
 * opaque data, or holding a control character, are suppressed; a credential
 * marker suppresses the whole field, continuation lines included.
 */
import { describe, expect, it } from "vitest";
import { windowsProcessFailure } from "../../../src/io/windows-process/failure";
import { FIELD_SUPPRESSED, LINE_SUPPRESSED, sanitizeStream } from "../../../src/io/windows-process/sanitize";
import { failure, node } from "./helpers";

describe("path/SID, encoded ACL/opaque and control-bearing lines are suppressed", () => {
  const suppressed: [string, string][] = [
    ["drive path", "could not open C:\\Users\\alice\\AppData"],
    ["drive path, forward slashes", "see c:/users/alice"],
    ["UNC path", "\\\\server\\share\\x"],
    ["account", "granted to CONTOSO\\alice"],
    ["POSIX path", "cannot read /home/alice/.ssh"],
    ["home path", "see ~/notes"],
    ["relative path", "wrote ./out/file"],
    ["SID", "owner S-1-5-21-3623811015-3361044348-30300820-1013"],
    ["SDDL", "O:BAG:SYD:PAI(A;OICI;FA;;;SY)"],
    ["SDDL ACE", "(A;OICI;FA;;;BA)"],
    ["icacls rights", "Everyone:(OI)(CI)(F)"],
    ["icacls rights list", "Users:(RX,W)"],
    ["base64", "blob AQAAANCMnd8BFdERjHoAwE/Cl+sBAAAA"],
    ["long hex", "id 0123456789abcdef0123"],
    ["long hex, letters first", "id abcdef0123456789abcd"],
    ["GUID", "{8a6f2e4c-1b3d-4e5f-9a0b-1c2d3e4f5a6b}"],
    ["escape", "red \u001b[31m text"],
    ["NUL", "a\u0000b"],
    ["bare carriage return", "50%\rdone"],
    ["bidi override", "file\u202Etxt.exe"],
    ["zero-width", "ad\u200Bmin"],
    ["tab", "a\tb"],
  ];
  it.each(suppressed)("%s", (_what, line) => {
    expect(sanitizeStream(`before\n${line}\nafter`)).toBe(`before\n${LINE_SUPPRESSED}\nafter`);
  });

  const kept = [
    "Access is denied.",
    "Successfully processed 1 files; Failed processing 0 files",
    "System.UnauthorizedAccessException: Attempted to perform an unauthorized operation.",
    "HRESULT 0x80070005",
    "Registry key not found",
    "and/or",
    "CategoryInfo          : PermissionDenied: (:) [Get-Acl], UnauthorizedAccessException",
  ];
  it.each(kept)("kept: %s", (line) => {
    expect(sanitizeStream(line)).toBe(line);
  });

  it("consecutive suppressed lines become one placeholder; CRLF is a line end, not a control", () => {
    expect(sanitizeStream("one\r\nC:\\a\r\nC:\\b\r\ntwo\r\n")).toBe(`one\n${LINE_SUPPRESSED}\ntwo`);
  });

  it("applies to the real captured streams of a failure", async () => {
    const { cause } = await failure(node("console.log('first'); console.log('C:\\\\Users\\\\alice'); console.error('S-1-5-18'); process.exit(2)"));
    expect(cause.stdout).toBe(`first\n${LINE_SUPPRESSED}`);
    expect(cause.stderr).toBe(LINE_SUPPRESSED);
  });
});

describe("credential markers suppress the entire field including continuation lines", () => {
  const markers = [
    "GITHUB_TOKEN=ghp_x",
    "API_KEY: abc",
    "OPENAI_API_KEY",
    "NPM_AUTH x",
    "GH_PAT is set",
    "SSH_KEY_FILE",
    "token expired",
    "Password: hunter2",
    "client secret",
    "Authorization: Bearer abc",
    "credential manager",
    "private key",
    "api key",
    "cookie",
    "//registry/:_auth=abc",
  ];
  it.each(markers)("%s", (marker) => {
    const { cause } = windowsProcessFailure({ status: 1, stdout: "plain", stderr: `first line\n${marker}\n  continuation value abc123\nlast` });
    expect(cause.stderr).toBe(FIELD_SUPPRESSED);
    expect(cause.stdout).toBe("plain");
    expect(cause.stack).not.toContain("continuation");
    expect(cause.stack).not.toContain("first line");
  });

  it("a marker far beyond the 1024 shown units still suppresses the field", () => {
    expect(sanitizeStream("x".repeat(3000) + "\nGITHUB_TOKEN=1")).toBe(FIELD_SUPPRESSED);
    expect(sanitizeStream("secret1 ".repeat(1) + "\n" + "y".repeat(5000))).toBe(FIELD_SUPPRESSED);
  });

  it("words that only contain 'key' are not markers", () => {
    expect(sanitizeStream("keyboard layout; monkey; turnkey")).toBe("keyboard layout; monkey; turnkey");
  });

  it("a 1 MiB single line is filtered quickly", () => {
    const started = Date.now();
    sanitizeStream("a_".repeat(512 * 1024));
    sanitizeStream("A".repeat(1024 * 1024));
    expect(Date.now() - started).toBeLessThan(2000);
  });
});
