// A turn's usage in words: "1.2k in / 340 out" and "$0.0031". Only what the harness reported
// is shown: no usage, or no price, shows nothing rather than a zero.
import type { TurnUsage } from "../bindings/TurnUsage";

function count(n: number): string {
  if (n < 1000) return String(n);
  if (n < 10_000) return `${(n / 1000).toFixed(1)}k`;
  if (n < 1_000_000) return `${Math.round(n / 1000)}k`;
  return `${(n / 1_000_000).toFixed(1)}M`;
}

export function tokensText(usage: TurnUsage): string {
  return `${count(usage.input_tokens)} in / ${count(usage.output_tokens)} out`;
}

/** The price, or null when the harness reports none. */
export function costText(usage: TurnUsage): string | null {
  if (usage.cost_usd === null) return null;
  return usage.cost_usd >= 1 ? `$${usage.cost_usd.toFixed(2)}` : `$${usage.cost_usd.toFixed(4)}`;
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
