/**
 * The install's setup step runs `gentle-shell setup` (src/install/setup-step.ts):
 * through the launcher on POSIX; on Windows, where Node cannot start the .cmd
 * without a shell, the version's engine with our node, as the .cmd does.
 */
import { describe, expect, it } from "vitest";
import { prefixLayout } from "../../src/core/layout";
import { productionPins } from "../../src/pins/production";
import { setupCommand } from "../../src/install/setup-step";

describe("setupCommand", () => {
  it("is the launcher's setup on POSIX", () => {
    const layout = prefixLayout({ home: "/home/ana", platform: "linux", pins: productionPins });
    expect(setupCommand(layout, "4.1.0-1.6.0")).toEqual({ command: "/home/ana/.gentle-shell/bin/gentle-shell", args: ["setup"] });
  });

  it("is the version's engine on our node on Windows, with no Node option (the engine turns proxy support on itself)", () => {
    const prefix = "C:/Users/ana/AppData/Local/gentle-shell";
    const layout = prefixLayout({ home: "C:/Users/ana", platform: "win32", pins: productionPins, windowsPrefix: prefix });
    expect(setupCommand(layout, "4.1.0-1.6.0")).toEqual({
      command: `${prefix}/runtime/node-24.21.0/node.exe`,
      args: [`${prefix}/versions/4.1.0-1.6.0/.gentle-shell/engine.cjs`, "--gentle-shell-engine", "setup"],
    });
  });
});
