import { describe, expect, it } from "vitest";
import { headerSignal, isReadyCompatibility, olderServerVersion, parseEngramVersion } from "../../../src/installed/engram/contract";

const IID = "0123456789abcdef0123456789abcdef";
const RID = "fedcba9876543210fedcba9876543210";
const ready = () => ({
  status: "ready",
  active_reuse_authorized: true,
  capability: "startup-verified-store-v1",
  revision: 1,
  source: "active",
  instance_id: IID,
  runtime_id: RID,
});

/** An SQLite header: magic, page size, format bytes, user_version. */
function sqliteHeader(userVersion: number, over: { pageSize?: number; b18?: number; b19?: number; magic?: string } = {}): Buffer {
  const b = Buffer.alloc(100);
  b.write(over.magic ?? "SQLite format 3\0", 0, "latin1");
  b.writeUInt16BE(over.pageSize ?? 4096, 16);
  b[18] = over.b18 ?? 1;
  b[19] = over.b19 ?? 1;
  b.writeInt32BE(userVersion, 60);
  return b;
}

describe("the ready contract", () => {
  it("accepts the exact answer, with extra fields", () => {
    expect(isReadyCompatibility(ready())).toBe(true);
    expect(isReadyCompatibility({ ...ready(), extra: "x", offline_automatic_opening_authorized: false })).toBe(true);
  });

  const broken: [string, unknown][] = [
    ["status starting", { ...ready(), status: "starting" }],
    ["reuse not authorized", { ...ready(), active_reuse_authorized: false }],
    ["reuse as a string", { ...ready(), active_reuse_authorized: "true" }],
    ["another capability", { ...ready(), capability: "startup-verified-store-v2" }],
    ["revision 2", { ...ready(), revision: 2 }],
    ["revision as a string", { ...ready(), revision: "1" }],
    ["source offline", { ...ready(), source: "offline" }],
    ["short instance_id", { ...ready(), instance_id: IID.slice(1) }],
    ["non-hex runtime_id", { ...ready(), runtime_id: "z".repeat(32) }],
    ["upper-case instance_id", { ...ready(), instance_id: IID.toUpperCase() }],
    ["missing runtime_id", (({ runtime_id: _, ...rest }) => rest)(ready())],
    ["offline opening authorized", { ...ready(), offline_automatic_opening_authorized: true }],
    ["an array", [ready()]],
    ["null", null],
    ["a string", "ready"],
  ];
  for (const [name, value] of broken) {
    it(`refuses ${name}`, () => expect(isReadyCompatibility(value)).toBe(false));
  }
});

describe("/health version", () => {
  it("parses canonical x.y.z with an optional v", () => {
    expect(parseEngramVersion("3.3.2")).toEqual([3, 3, 2]);
    expect(parseEngramVersion("v3.3.2")).toEqual([3, 3, 2]);
    expect(parseEngramVersion("0.0.0")).toEqual([0, 0, 0]);
    expect(parseEngramVersion("9999.0.1")).toEqual([9999, 0, 1]);
  });

  for (const bad of ["03.3.2", "3.03.2", "3.3.02", "10000.0.0", "3.3", "3.3.2.1", "3.3.2-rc1", "V3.3.2", " 3.3.2", "3.3.2\n", "vv3.3.2", "", "3.x.2"]) {
    it(`rejects ${JSON.stringify(bad)}`, () => expect(parseEngramVersion(bad)).toBeNull());
  }
  it("rejects a number", () => expect(parseEngramVersion(3.3)).toBeNull());

  it("selects the older-server wording only below 3.4.0 with a valid instance_id", () => {
    expect(olderServerVersion({ status: "ok", version: "3.3.2", instance_id: IID })).toBe("3.3.2");
    expect(olderServerVersion({ version: "v3.3.9", instance_id: IID })).toBe("3.3.9");
    expect(olderServerVersion({ version: "2.99.99", instance_id: IID })).toBe("2.99.99");
    expect(olderServerVersion({ version: "3.4.0", instance_id: IID })).toBeNull();
    expect(olderServerVersion({ version: "3.5.2", instance_id: IID })).toBeNull();
    expect(olderServerVersion({ version: "4.0.0", instance_id: IID })).toBeNull();
    expect(olderServerVersion({ version: "3.3.2", instance_id: "abc" })).toBeNull();
    expect(olderServerVersion({ version: "3.3.2" })).toBeNull();
    expect(olderServerVersion({ version: "3.3.2; rm -rf ~", instance_id: IID })).toBeNull();
    expect(olderServerVersion("3.3.2")).toBeNull();
  });
});

describe("the header tripwire", () => {
  it("reads user_version big-endian against the pinned schema", () => {
    expect(headerSignal(sqliteHeader(2), 1)).toEqual({ kind: "newer", userVersion: 2 });
    expect(headerSignal(sqliteHeader(0x01000000), 1)).toEqual({ kind: "newer", userVersion: 0x01000000 });
    expect(headerSignal(sqliteHeader(1), 1)).toEqual({ kind: "not-newer", userVersion: 1 });
    expect(headerSignal(sqliteHeader(0), 1)).toEqual({ kind: "not-newer", userVersion: 0 });
  });

  it("a pin without a verified schema counts any readable header as newer", () => {
    expect(headerSignal(sqliteHeader(0), null)).toEqual({ kind: "newer", userVersion: 0 });
    expect(headerSignal(Buffer.alloc(100), null)).toEqual({ kind: "none" });
  });

  it("accepts every valid page size and the format bytes 1 and 2", () => {
    for (const pageSize of [1, 512, 1024, 4096, 32768]) expect(headerSignal(sqliteHeader(5, { pageSize }), 1).kind).toBe("newer");
    expect(headerSignal(sqliteHeader(5, { b18: 2, b19: 2 }), 1).kind).toBe("newer");
  });

  const invalid: [string, Buffer | null][] = [
    ["no file", null],
    ["a short file", sqliteHeader(5).subarray(0, 99)],
    ["another magic", sqliteHeader(5, { magic: "SQLite format 4\0" })],
    ["page size 0", sqliteHeader(5, { pageSize: 0 })],
    ["page size 1000", sqliteHeader(5, { pageSize: 1000 })],
    ["page size 256", sqliteHeader(5, { pageSize: 256 })],
    ["page size 65535", sqliteHeader(5, { pageSize: 65535 })],
    ["byte 18 is 0", sqliteHeader(5, { b18: 0 })],
    ["byte 19 is 3", sqliteHeader(5, { b19: 3 })],
  ];
  for (const [name, header] of invalid) {
    it(`${name} is no signal`, () => expect(headerSignal(header, 1)).toEqual({ kind: "none" }));
  }
});
