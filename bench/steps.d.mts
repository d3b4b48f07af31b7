export interface StepTimes {
  claim: number;
  npmSettings: number;
  download: number;
  unpack: number;
  pnpm: number;
  versionRest: number;
  activate: number;
  check: number;
  path: number;
  setup: number;
}
export const STEP_ROWS: { key: keyof StepTimes; label: string; floor: string | null }[];
export function stepTimes(text: string): StepTimes;
export function runtimeArchives(mirrorRoot: string, target?: string): string[];
