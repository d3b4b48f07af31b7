/** The bench's SVG writer (bench/svg.mjs) on fixed data: one scale for every bar, escaped text, no time that is not one. */
import { describe, expect, it } from "vitest";
import { STEP_ROWS, stepTimes } from "../../bench/steps.mjs";
import { stepChart } from "../../bench/svg.mjs";

const data = {
  title: "Install <steps> & floors",
  note: "ratios, not absolute times",
  steps: [
    { label: "runtime", ours: 2000, floor: 1000 },
    { label: "pnpm", ours: 4000, floor: 3000 },
    { label: "claim", ours: 10, floor: null },
  ],
  totals: [
    { label: "ours", ms: 6010, kind: "ours" as const },
    { label: "sum of floors", ms: 4000, kind: "floor" as const },
    { label: "npm install -g", ms: 8000, kind: "other" as const },
  ],
};

/** Every bar: its width and its title. */
function bars(svg: string) {
  return [...svg.matchAll(/<rect x="210" y="[\d.]+" width="([\d.]+)" height="11" fill="[^"]+"><title>([^<]*)<\/title><\/rect>/g)].map((m) => ({
    width: Number(m[1]),
    title: m[2],
  }));
}

describe("stepChart", () => {
  it("draws ours and the floor for each step and the totals, all on the scale of the longest", () => {
    const svg = stepChart(data);
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    expect(svg.trimEnd().endsWith("</svg>")).toBe(true);
    const drawn = bars(svg);
    // The longest time (npm install -g, 8 s) spans the bar area (440 px); the rest in proportion.
    expect(drawn).toEqual([
      { width: 110, title: "runtime, ours: 2.00 s" },
      { width: 55, title: "runtime, floor: 1.00 s" },
      { width: 220, title: "pnpm, ours: 4.00 s" },
      { width: 165, title: "pnpm, floor: 3.00 s" },
      { width: 0.6, title: "claim, ours: 0.01 s" },
      { width: 330.6, title: "ours: 6.01 s" },
      { width: 220, title: "sum of floors: 4.00 s" },
      { width: 440, title: "npm install -g: 8.00 s" },
    ]);
    expect(svg).toContain(">no floor</text>");
  });

  it("escapes text and refuses a time that is not one", () => {
    const svg = stepChart(data);
    expect(svg).toContain("Install &lt;steps&gt; &amp; floors");
    expect(svg).not.toContain("<steps>");
    expect(() => stepChart({ ...data, steps: [{ label: "x", ours: Number.NaN, floor: 1 }] })).toThrow(/not a time/);
    expect(() => stepChart({ ...data, totals: [{ label: "x", ms: -1, kind: "ours" }] })).toThrow(/not a time/);
  });

  it("gives the same bytes for the same data", () => {
    expect(stepChart(data)).toBe(stepChart(structuredClone(data)));
  });
});

describe("stepTimes (bench/steps.mjs)", () => {
  const marks = (pairs: [string, number][]) => pairs.map(([mark, at]) => JSON.stringify({ mark, at })).join("\n");

  it("turns one install's marks into step times: the runtime step split at its last verified download, pnpm out of the version step", () => {
    const text = marks([
      ["claim:start", 1000],
      ["claim:end", 1010],
      ["npm-settings:start", 1010],
      ["npm-settings:end", 1015],
      ["runtime:start", 1015],
      ["pnpm 11.1.1:downloaded", 1200],
      ["Node 24.21.0:downloaded", 1515],
      ["Node 24.21.0:published", 3000],
      ["runtime:end", 3515],
      ["version:start", 3515],
      ["pnpm:start", 3600],
      ["pnpm:end", 7600],
      ["version:end", 7700],
      ["activate:start", 7700],
      ["activate:end", 7710],
      ["launcher:start", 7710],
      ["launcher:end", 7720],
      ["verify-launcher:start", 7720],
      ["verify-launcher:end", 7820],
      ["path:start", 7820],
      ["path:end", 7830],
    ]);
    expect(stepTimes(text)).toEqual({
      claim: 10,
      npmSettings: 5,
      download: 500,
      unpack: 2000,
      pnpm: 4000,
      versionRest: 185,
      activate: 20,
      check: 100,
      path: 10,
      setup: 0,
    });
    expect(STEP_ROWS.map((r) => r.key)).toEqual(Object.keys(stepTimes(text)));
  });

  it("reads a reused runtime (no download) as no download time", () => {
    const times = stepTimes(
      marks([
        ["runtime:start", 10],
        ["runtime:end", 40],
      ]),
    );
    expect(times.download).toBe(0);
    expect(times.unpack).toBe(30);
  });
});
