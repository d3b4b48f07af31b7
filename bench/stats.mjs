/**
 * The bench's figures: medians with their minimum and maximum, formatted
 * the same way in every section of bench/results.md.
 */

export function median(values) {
  const s = [...values].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** Milliseconds as seconds (≥ 1 s) or milliseconds. */
export function fmt(ms) {
  return ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(0)} ms`;
}

/** "median (min–max)" of a list of milliseconds. */
export function spread(values) {
  return `${fmt(median(values))} (${fmt(Math.min(...values))}–${fmt(Math.max(...values))})`;
}

/** a ÷ b of two medians, as "1.23×". */
export function ratio(a, b) {
  return `${(median(a) / median(b)).toFixed(2)}×`;
}

/** Every run's figure, in run order. */
export function raw(values) {
  return values.map((v) => v.toFixed(0)).join(", ");
}

/** Run by run: each a[i] ÷ b[i] (runs taken side by side), as "median× (min–max)". */
export function pairedRatio(a, b) {
  const r = a.map((t, n) => t / b[n]);
  return `${median(r).toFixed(2)}× (${Math.min(...r).toFixed(2)}–${Math.max(...r).toFixed(2)})`;
}
