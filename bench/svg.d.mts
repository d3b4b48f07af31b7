export function escapeXml(text: string): string;
export function stepChart(data: {
  title: string;
  note?: string;
  steps: { label: string; ours: number; floor: number | null }[];
  totals: { label: string; ms: number; kind: "ours" | "floor" | "other" }[];
}): string;
