/**
 * A small, dependency-free SVG writer for the bench's step breakdown
 * (bench/install-steps.svg): one pair of bars per install step (ours, and
 * its floor measured in the same run), then the totals (ours, the sum of the
 * floors, npm install -g). Every bar shares one scale. Pure: the same data
 * always gives the same bytes.
 */

const WIDTH = 760;
const LABEL = 210;
const BAR_AREA = 440;
const BAR = 11;
const GAP = 3;
const ROW = 2 * BAR + GAP + 10;
const COLORS = { ours: "#2f6fb3", floor: "#9aa5b1", other: "#d08c2e" };

/** Text safe inside an SVG element or attribute. */
export function escapeXml(text) {
  return String(text).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
}

const seconds = (ms) => `${(ms / 1000).toFixed(2)} s`;
const px = (n) => (Math.round(n * 10) / 10).toString();

/**
 * @param {{ title: string, note?: string,
 *   steps: { label: string, ours: number, floor: number | null }[],
 *   totals: { label: string, ms: number, kind: "ours" | "floor" | "other" }[] }} data  times in ms
 * @returns {string} the SVG document
 */
export function stepChart(data) {
  const values = [...data.steps.flatMap((s) => [s.ours, s.floor ?? 0]), ...data.totals.map((t) => t.ms)];
  for (const v of values) if (!Number.isFinite(v) || v < 0) throw new Error(`stepChart: ${v} is not a time`);
  const max = Math.max(1, ...values);
  const scale = (ms) => (ms / max) * BAR_AREA;
  const out = [];
  let y = 56;
  const bar = (x, yy, ms, kind, title) => {
    out.push(
      `<rect x="${x}" y="${px(yy)}" width="${px(scale(ms))}" height="${BAR}" fill="${COLORS[kind]}"><title>${escapeXml(title)}: ${seconds(ms)}</title></rect>`,
    );
    out.push(`<text x="${px(x + scale(ms) + 4)}" y="${px(yy + BAR - 2)}" class="v">${seconds(ms)}</text>`);
  };
  for (const step of data.steps) {
    out.push(`<text x="${LABEL - 8}" y="${px(y + BAR + 2)}" class="l" text-anchor="end">${escapeXml(step.label)}</text>`);
    bar(LABEL, y, step.ours, "ours", `${step.label}, ours`);
    if (step.floor === null) out.push(`<text x="${LABEL + 2}" y="${px(y + 2 * BAR + GAP - 2)}" class="v">no floor</text>`);
    else bar(LABEL, y + BAR + GAP, step.floor, "floor", `${step.label}, floor`);
    y += ROW;
  }
  y += 6;
  out.push(`<line x1="${LABEL}" x2="${LABEL + BAR_AREA}" y1="${px(y)}" y2="${px(y)}" stroke="#ccc"/>`);
  y += 12;
  for (const total of data.totals) {
    out.push(`<text x="${LABEL - 8}" y="${px(y + BAR - 1)}" class="l" text-anchor="end">${escapeXml(total.label)}</text>`);
    bar(LABEL, y, total.ms, total.kind, total.label);
    y += BAR + 10;
  }
  const height = Math.ceil(y + (data.note ? 24 : 8));
  const legend = [
    ["ours", "ours"],
    ["floor", "floor (same run)"],
    ["other", "npm install -g"],
  ]
    .map(([kind, text], i) => {
      const x = LABEL + i * 150;
      return `<rect x="${x}" y="30" width="12" height="12" fill="${COLORS[kind]}"/><text x="${x + 17}" y="40" class="l">${escapeXml(text)}</text>`;
    })
    .join("");
  const note = data.note ? `<text x="10" y="${height - 8}" class="v">${escapeXml(data.note)}</text>` : "";
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" font-family="sans-serif">`,
    `<title>${escapeXml(data.title)}</title>`,
    `<style>.l{font-size:12px;fill:#222}.v{font-size:11px;fill:#444}</style>`,
    `<rect width="100%" height="100%" fill="#fff"/>`,
    `<text x="10" y="20" font-size="14" font-weight="bold" fill="#222">${escapeXml(data.title)}</text>`,
    legend,
    ...out,
    note,
    `</svg>`,
    "",
  ]
    .filter(Boolean)
    .join("\n");
}
