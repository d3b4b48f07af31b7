import { describe, expect, it } from "vitest";
import { LAUNCHER_PATH_VARIABLE, launcherCall } from "../../src/core/cmd-call";

const LAUNCHER = "C:\\Users\\Martín\\AppData\\Local\\gentle-shell (100%) & co!\\bin\\gentle-shell.cmd";

describe("starting the launcher as a terminal does (issue 24, defects 1 and 8)", () => {
  it("POSIX: the launcher itself, with the arguments and environment as given", () => {
    expect(launcherCall("linux", "/h/.gentle-shell/bin/gentle-shell", ["--version"], { HOME: "/h" })).toEqual({
      command: "/h/.gentle-shell/bin/gentle-shell",
      args: ["--version"],
      env: { HOME: "/h" },
      verbatim: false,
    });
  });

  it("Windows: cmd.exe runs the .cmd (Node refuses a .cmd without a shell), the path only as a variable's value", () => {
    const call = launcherCall("win32", LAUNCHER, ["--version"], { ComSpec: "C:\\Windows\\system32\\cmd.exe", Path: "C:\\Windows" });
    expect(call).toEqual({
      command: "C:\\Windows\\system32\\cmd.exe",
      args: ["/d", "/v:off", "/s", "/c", `""%${LAUNCHER_PATH_VARIABLE}%" --version"`],
      env: { ComSpec: "C:\\Windows\\system32\\cmd.exe", Path: "C:\\Windows", [LAUNCHER_PATH_VARIABLE]: LAUNCHER },
      verbatim: true,
    });
    // Nothing of the prefix (%, &, !, parentheses, a non-ASCII letter) reaches cmd.exe's command line.
    expect("args" in call && call.args.join(" ")).not.toMatch(/Martín|100%|&|!/);
  });

  it("Windows: cmd.exe by name when ComSpec is unset or empty, whatever the variable's case", () => {
    for (const env of [{}, { ComSpec: "" }]) {
      const call = launcherCall("win32", LAUNCHER, [], env);
      expect("command" in call && call.command).toBe("cmd.exe");
    }
    const lower = launcherCall("win32", LAUNCHER, [], { COMSPEC: "D:\\cmd.exe" });
    expect("command" in lower && lower.command).toBe("D:\\cmd.exe");
  });

  it("Windows: an argument cmd.exe would read as syntax is refused, never passed", () => {
    for (const arg of ["a&b", "%PATH%", '"x"', "a b", "^", "x|y", "(", ""]) {
      expect(launcherCall("win32", LAUNCHER, [arg], {})).toEqual({ refused: `the argument ${JSON.stringify(arg)} cannot be handed to cmd.exe unchanged` });
    }
  });
});
