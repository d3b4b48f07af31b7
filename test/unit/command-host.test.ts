/**
 * A command's Host through citty (src/cli/command-host.ts): what commandData
 * made is read back as that Host; anything else, even a Host-shaped object,
 * is refused as our bug rather than cast.
 */
import { describe, expect, it } from "vitest";
import { commandData, hostOf } from "../../src/cli/command-host";
import type { Host } from "../../src/io/host";

describe("hostOf", () => {
  it("reads back the Host commandData carried", () => {
    const host = { env: {}, home: "/home/ana" } as unknown as Host;
    expect(hostOf(commandData(host))).toBe(host);
  });

  it.each([[undefined], [null], [{ env: {}, home: "/home/ana", out: () => undefined }]])("refuses data commandData did not make: %o", (data) => {
    expect(() => hostOf(data)).toThrow(/ran without its Host/);
  });
});
