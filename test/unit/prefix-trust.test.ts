/**
 * The claim's rule for each entry of an existing prefix (core/prefix-trust.ts,
 * issue 39, 1): owners, modes and types in, one verdict out.
 */
import { describe, expect, it } from "vitest";
import { childPlace, claimSummary, type EntryFacts, judgeEntry, looksInside, refusalSentence } from "../../src/core/prefix-trust";

const ME = 1000;
const folder = (mode: number, uid = ME): EntryFacts => ({ kind: "folder", uid, mode: 0o040000 | mode });
const file = (mode: number, uid = ME): EntryFacts => ({ kind: "file", uid, mode: 0o100000 | mode });
const link = (uid = ME): EntryFacts => ({ kind: "link", uid, mode: 0o120777 });

describe("judgeEntry", () => {
  it("refuses an entry of another user's at every place, whatever its type or mode, naming the owner", () => {
    for (const place of ["prefix", "agent", "inside", "agent-content"] as const) {
      expect(judgeEntry(folder(0o700, 12345), ME, place)).toEqual({ action: "refuse", why: "owner", owner: 12345 });
    }
    for (const facts of [file(0o644, 12345), file(0o600, 0), link(12345), { kind: "other", uid: 12345, mode: 0o010644 } as EntryFacts]) {
      expect(judgeEntry(facts, ME, "inside")).toMatchObject({ action: "refuse", why: "owner", owner: facts.uid });
      expect(judgeEntry(facts, ME, "agent-content")).toMatchObject({ action: "refuse", why: "owner" });
    }
  });

  it("sets the prefix itself to 0700, the plan's mode, whenever it is anything else", () => {
    expect(judgeEntry(folder(0o777), ME, "prefix")).toEqual({ action: "tighten", mode: 0o700 });
    expect(judgeEntry(folder(0o775), ME, "prefix")).toEqual({ action: "tighten", mode: 0o700 });
    expect(judgeEntry(folder(0o755), ME, "prefix")).toEqual({ action: "tighten", mode: 0o700 });
    expect(judgeEntry(folder(0o2700), ME, "prefix")).toEqual({ action: "tighten", mode: 0o700 });
    expect(judgeEntry(folder(0o700), ME, "prefix")).toEqual({ action: "keep" });
  });

  it("takes group and other write access from our files and folders inside, and nothing else", () => {
    expect(judgeEntry(folder(0o777), ME, "inside")).toEqual({ action: "tighten", mode: 0o755 });
    expect(judgeEntry(folder(0o770), ME, "inside")).toEqual({ action: "tighten", mode: 0o750 });
    expect(judgeEntry(folder(0o2775), ME, "inside")).toEqual({ action: "tighten", mode: 0o755 });
    expect(judgeEntry(file(0o666), ME, "inside")).toEqual({ action: "tighten", mode: 0o644 });
    expect(judgeEntry(file(0o602), ME, "inside")).toEqual({ action: "tighten", mode: 0o600 });
    expect(judgeEntry(file(0o775), ME, "agent")).toMatchObject({ action: "refuse", why: "not-folder" });
    expect(judgeEntry(folder(0o775), ME, "agent")).toEqual({ action: "tighten", mode: 0o755 });
    for (const mode of [0o755, 0o700, 0o644, 0o600, 0o4755]) expect(judgeEntry(file(mode), ME, "inside")).toEqual({ action: "keep" });
  });

  it("leaves the modes inside the agent home as the user keeps them", () => {
    expect(judgeEntry(file(0o666), ME, "agent-content")).toEqual({ action: "keep" });
    expect(judgeEntry(folder(0o777), ME, "agent-content")).toEqual({ action: "keep" });
  });

  it("keeps a link of ours anywhere inside, but refuses a link or a non-folder at the prefix or the agent home", () => {
    expect(judgeEntry(link(), ME, "inside")).toEqual({ action: "keep" });
    expect(judgeEntry(link(), ME, "agent-content")).toEqual({ action: "keep" });
    expect(judgeEntry(link(), ME, "prefix")).toEqual({ action: "refuse", why: "link" });
    expect(judgeEntry(link(), ME, "agent")).toEqual({ action: "refuse", why: "link" });
    expect(judgeEntry(file(0o700), ME, "prefix")).toEqual({ action: "refuse", why: "not-folder" });
  });

  it("without POSIX owners (Windows) judges the type only: the private folder's DACL stands for owners and modes", () => {
    expect(judgeEntry(folder(0o777, 0), null, "prefix")).toEqual({ action: "keep" });
    expect(judgeEntry(file(0o666, 12345), null, "inside")).toEqual({ action: "keep" });
    expect(judgeEntry(link(0), null, "prefix")).toEqual({ action: "refuse", why: "link" });
    expect(judgeEntry(file(0o666, 0), null, "agent")).toEqual({ action: "refuse", why: "not-folder" });
  });
});

describe("looksInside and childPlace", () => {
  it("looks inside real folders it does not refuse, never through a link", () => {
    expect(looksInside(folder(0o755), { action: "keep" })).toBe(true);
    expect(looksInside(folder(0o777), { action: "tighten", mode: 0o755 })).toBe(true);
    expect(looksInside(folder(0o755, 12345), { action: "refuse", why: "owner", owner: 12345 })).toBe(false);
    expect(looksInside(link(), { action: "keep" })).toBe(false);
    expect(looksInside(file(0o644), { action: "keep" })).toBe(false);
  });

  it("places the agent home and everything below it apart from the rest", () => {
    expect(childPlace("prefix", true)).toBe("agent");
    expect(childPlace("prefix", false)).toBe("inside");
    expect(childPlace("inside", false)).toBe("inside");
    expect(childPlace("agent", false)).toBe("agent-content");
    expect(childPlace("agent-content", false)).toBe("agent-content");
  });
});

describe("the claim's sentences", () => {
  it("names the entry, its owner and what to do, in one sentence", () => {
    expect(refusalSentence("~/.gentle-shell/npm", { action: "refuse", why: "owner", owner: 12345 })).toBe(
      "~/.gentle-shell/npm belongs to another user (uid 12345), so Gentle Shell cannot trust it and nothing was changed; remove it (as that user, or with sudo) and run the installer again.",
    );
    expect(refusalSentence("~/.gentle-shell/npm", { action: "refuse", why: "owner", owner: 0 }, 2)).toContain(
      "(uid 0) (2 more entries of the Gentle Shell folder too), so",
    );
    expect(refusalSentence("~/.gentle-shell", { action: "refuse", why: "link" })).toBe(
      "~/.gentle-shell is a link; it must be a real folder. Nothing was changed: move it away, then run the installer again.",
    );
  });

  it("says what the claim changed", () => {
    expect(claimSummary(true, 0o700, 0)).toBe("created");
    expect(claimSummary(false, null, 0)).toBe("already there");
    expect(claimSummary(false, 0o700, 0)).toBe("already there; mode 0700 set");
    expect(claimSummary(false, 0o700, 3)).toBe("already there; mode 0700 set, group/other write access removed from 3 entries inside");
    expect(claimSummary(false, null, 1)).toBe("already there; group/other write access removed from 1 entry inside");
  });
});
