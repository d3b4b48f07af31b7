import { describe, expect, it } from "vitest";
import { isWithin, tildify, tildifyText } from "../../src/core/layout";

describe("the home folder shown as ~ (issue 24, defect 13)", () => {
  it("POSIX: only the home folder itself or what lies inside it", () => {
    expect(tildify("/home/a/.gentle-shell/bin", "/home/a")).toBe("~/.gentle-shell/bin");
    expect(tildify("/home/a", "/home/a")).toBe("~");
    expect(tildify("/home/ab/x", "/home/a")).toBe("/home/ab/x");
    // A backslash is a file name's letter on POSIX, never a separator.
    expect(tildify("/home/a\\b/x", "/home/a")).toBe("/home/a\\b/x");
    expect(tildifyText("see /home/a/x and /home/a.", "/home/a")).toBe("see ~/x and ~.");
  });

  it("Windows: the layout's forward slashes and USERPROFILE's backslashes name the same home", () => {
    const home = "C:\\Users\\Martín";
    expect(tildify("C:/Users/Martín/.gentle-shell/agent", home)).toBe("~/.gentle-shell/agent");
    expect(tildify("C:\\Users\\Martín\\.gentle-shell\\agent", home)).toBe("~/.gentle-shell/agent");
    expect(tildify("C:/Users/Martín", home)).toBe("~");
    expect(tildify("C:/Users/Martína/x", home)).toBe("C:/Users/Martína/x");
    expect(tildifyText("C:/Users/Martín/a and C:\\Users\\Martín\\b", home)).toBe("~/a and ~\\b");
  });

  it("isWithin takes either separator, and never another drive", () => {
    expect(isWithin("C:\\Users\\a\\versions\\1", "C:/Users/a/versions/1/node_modules/pi")).toBe(true);
    expect(isWithin("C:\\Users\\a\\versions\\1", "D:\\Users\\a\\versions\\1\\x")).toBe(false);
    expect(isWithin("/p/versions/1", "/p/versions/10")).toBe(false);
  });
});
