/** CI is set, to anything but "false" or "0" (a CI service's run, where nobody answers). */
export function underCi(env: Record<string, string | undefined>): boolean {
  return Boolean(env.CI) && env.CI !== "false" && env.CI !== "0";
}

/**
 * The one colour decision (spec: CLI conventions): bars, colours and panels
 * only on a terminal, not under TERM=dumb, NO_COLOR (any non-empty value) or
 * CI (other than "false" or "0"). Pure; every writer of ours asks this.
 */
export function fancyOutput(stream: { isTTY?: boolean }, env: Record<string, string | undefined>): boolean {
  const ci = underCi(env);
  return Boolean(stream.isTTY) && env.TERM !== "dumb" && !env.NO_COLOR && !ci;
}
