/**
 * The one reading of a yes/no answer typed at one of our questions: y or yes
 * in any case, spaces around ignored; an empty line takes the question's
 * default ([Y/n] is yes, [y/N] is no); anything else, and no answer at all
 * (end of input), is no. Pure.
 */
export function answeredYes(answer: string | null, byDefault: "yes" | "no"): boolean {
  if (answer === null) return false;
  const trimmed = answer.trim();
  if (trimmed === "") return byDefault === "yes";
  return /^(y|yes)$/i.test(trimmed);
}
