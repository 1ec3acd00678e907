// Cost in words (docs/architecture.md "Cost"): a turn's figure on its reply, a branch's in the
// header ("this branch 41k tokens · $0.38 · inherited $1.12"), a tree's in its dialog. Money
// that is unknown says so, never $0; a figure with no turns says nothing. Pure, unit-tested.
import type { BranchCost } from "../bindings/BranchCost";
import type { CostFigure } from "../bindings/CostFigure";
import type { PricedBy } from "../bindings/PricedBy";
import type { TurnUsage } from "../bindings/TurnUsage";

const NOTHING: CostFigure = {
  turns: 0,
  input_tokens: 0,
  cached_input_tokens: 0,
  cache_write_tokens: 0,
  output_tokens: 0,
  reasoning_tokens: 0,
  cost_usd: 0,
  unpriced_turns: 0,
};

/** A branch with no figures (nothing reported, or not read yet). */
export const NO_COST: BranchCost = { own: NOTHING, inherited: NOTHING, price_table: "" };

/** 1234 → "1.2k", 41_000 → "41k", 2_500_000 → "2.5M". */
export function count(n: number): string {
  if (n < 1000) return String(n);
  if (n < 10_000) return `${(n / 1000).toFixed(1)}k`;
  if (n < 1_000_000) return `${Math.round(n / 1000)}k`;
  return `${(n / 1_000_000).toFixed(1)}M`;
}

/** Dollars: cents from $1 up, four places below (a turn often costs less than a cent). */
export function money(usd: number): string {
  if (usd === 0) return "$0";
  return usd >= 1 ? `$${usd.toFixed(2)}` : `$${usd.toFixed(4)}`;
}

/** Every token a figure counts, in and out. */
export function tokensOf(f: CostFigure): number {
  return f.input_tokens + f.output_tokens;
}

/** A figure's money: "$0.38", "$0.38 + 2 unpriced", "unknown price"; null without turns. */
export function figureMoney(f: CostFigure): string | null {
  if (f.turns === 0) return null;
  if (f.unpriced_turns === 0) return money(f.cost_usd);
  if (f.unpriced_turns === f.turns) return "unknown price";
  return `${money(f.cost_usd)} + ${f.unpriced_turns} unpriced`;
}

/** "41k tokens · $0.38"; null without turns. */
export function figureText(f: CostFigure): string | null {
  const m = figureMoney(f);
  return m === null ? null : `${count(tokensOf(f))} tokens · ${m}`;
}

/** The exact figures of a sum, for a tooltip. */
export function figureTitle(f: CostFigure): string {
  const turns = f.turns === 1 ? "1 turn" : `${f.turns} turns`;
  const cache =
    f.cached_input_tokens || f.cache_write_tokens
      ? ` (${f.cached_input_tokens} read from the cache, ${f.cache_write_tokens} written to it)`
      : "";
  const reasoning = f.reasoning_tokens ? ` (${f.reasoning_tokens} reasoning)` : "";
  const unpriced = f.unpriced_turns ? `; ${f.unpriced_turns} without a price (not counted in the money)` : "";
  return `${turns}: ${f.input_tokens} input tokens${cache}, ${f.output_tokens} output tokens${reasoning}, ${money(f.cost_usd)}${unpriced}`;
}

/** A branch in the header: its own turns, and what it inherited when it is a fork. */
export function branchText(own: CostFigure, inherited: CostFigure): string | null {
  const mine = figureText(own) ?? (inherited.turns ? "no turns of its own" : null);
  if (mine === null) return null;
  const came = figureMoney(inherited);
  return came === null ? `this branch ${mine}` : `this branch ${mine} · inherited ${came}`;
}

export interface TurnFigure {
  usage: TurnUsage | null;
  model: string | null;
  cost_usd: number | null;
  priced_by: PricedBy;
  inherited: boolean;
}

/** A reply's figure: "1.2k in / 340 out · $0.0031"; null when its harness reported nothing. */
export function turnText(t: TurnFigure): string | null {
  if (!t.usage) return null;
  const tokens = `${count(t.usage.input_tokens)} in / ${count(t.usage.output_tokens)} out`;
  return `${tokens} · ${t.cost_usd === null ? "unknown price" : money(t.cost_usd)}`;
}

/** Who priced it, the model, and whether the source paid for it, for the reply's tooltip. */
export function turnTitle(t: TurnFigure, priceTable: string): string {
  if (!t.usage) return "Its harness recorded no usage for this turn";
  const lines = [
    `${t.usage.input_tokens} input tokens${t.usage.cached_input_tokens ? ` (${t.usage.cached_input_tokens} cached)` : ""}, ${t.usage.output_tokens} output tokens`,
  ];
  if (t.model) lines.push(`model: ${t.model}`);
  lines.push(
    t.priced_by === "harness"
      ? `${money(t.cost_usd ?? 0)}, as the harness reported it`
      : t.priced_by === "table"
        ? `${money(t.cost_usd ?? 0)}, priced by ${priceTable}`
        : `unknown price: ${t.model ? `${t.model} is not in ${priceTable}` : "no model named"}`,
  );
  if (t.inherited) lines.push("inherited: it came with the fork, and its source paid for it");
  return lines.join("\n");
}
