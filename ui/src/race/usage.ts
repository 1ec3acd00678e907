// A turn's usage in words: "1.2k in / 340 out" and "$0.0031". Only what the harness reported
// is shown: no usage, or no price, shows nothing rather than a zero.
import type { TurnUsage } from "../bindings/TurnUsage";
import { count, money } from "../cost/cost";

export function tokensText(usage: TurnUsage): string {
  return `${count(usage.input_tokens)} in / ${count(usage.output_tokens)} out`;
}

/** The price, or null when the harness reports none. */
export function costText(usage: TurnUsage): string | null {
  if (usage.cost_usd === null) return null;
  return money(usage.cost_usd);
}

/** The whole line: tokens, then the price where known. */
export function usageText(usage: TurnUsage): string {
  const cost = costText(usage);
  return cost ? `${tokensText(usage)} · ${cost}` : tokensText(usage);
}

/** A tooltip with the exact figures. */
export function usageTitle(usage: TurnUsage): string {
  const cached = usage.cached_input_tokens === null ? "" : ` (${usage.cached_input_tokens} cached)`;
  const cost = usage.cost_usd === null ? "no price reported" : `$${usage.cost_usd}`;
  return `${usage.input_tokens} input tokens${cached}, ${usage.output_tokens} output tokens, ${cost}`;
}
