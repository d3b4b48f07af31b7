export function selfTimes(
  profile: {
    startTime: number;
    endTime: number;
    samples: number[];
    nodes: { hitCount: number; callFrame: { functionName: string; url: string; lineNumber: number } }[];
  },
  repo: string,
): { total: number; rows: { name: string; where: string; ms: number }[] };
export function straceRows(text: string): { syscall: string; seconds: number; calls: number; errors: number }[];
export function profileSection(options: { node24: string; acquire: string[]; work: string; repo: string }): Promise<string[]>;
