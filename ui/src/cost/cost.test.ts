import { describe, expect, it } from "vitest";
import type { CostFigure } from "../bindings/CostFigure";
import { branchText, count, figureMoney, figureText, money, turnText, turnTitle } from "./cost";

const figure = (over: Partial<CostFigure> = {}): CostFigure => ({
  turns: 2,
  input_tokens: 40_000,
  cached_input_tokens: 0,
  cache_write_tokens: 0,
  output_tokens: 1_200,
  reasoning_tokens: 0,
  cost_usd: 0.38,
  unpriced_turns: 0,
  ...over,
});
const none = figure({ turns: 0, input_tokens: 0, output_tokens: 0, cost_usd: 0 });

describe("cost words", () => {
  it("counts and money read as people say them", () => {
    expect([count(999), count(1234), count(41_200), count(2_500_000)]).toEqual(["999", "1.2k", "41k", "2.5M"]);
    expect([money(0), money(0.0031), money(1.125)]).toEqual(["$0", "$0.0031", "$1.13"]);
  });

  it("an unknown price is said, never $0", () => {
    expect(figureMoney(figure({ unpriced_turns: 2, cost_usd: 0 }))).toBe("unknown price");
    expect(figureMoney(figure({ unpriced_turns: 1 }))).toBe("$0.3800 + 1 unpriced");
    expect(figureMoney(none)).toBeNull();
    expect(figureText(figure())).toBe("41k tokens · $0.3800");
  });

  it("a branch names its own spend and what it inherited", () => {
    expect(branchText(figure(), none)).toBe("this branch 41k tokens · $0.3800");
    expect(branchText(figure(), figure({ cost_usd: 1.12 }))).toBe("this branch 41k tokens · $0.3800 · inherited $1.12");
    expect(branchText(none, figure({ cost_usd: 1.12 }))).toBe("this branch no turns of its own · inherited $1.12");
    expect(branchText(none, none)).toBeNull();
  });

  it("a reply's figure and its tooltip", () => {
    const usage = {
      input_tokens: 1234,
      output_tokens: 340,
      cached_input_tokens: 1000,
      cache_write_tokens: null,
      reasoning_tokens: null,
      cost_usd: null,
    };
    const t = { usage, model: "claude-x", cost_usd: null, priced_by: "unknown" as const, inherited: true };
    expect(turnText(t)).toBe("1.2k in / 340 out · unknown price");
    expect(turnTitle(t, "table 1")).toContain("claude-x is not in table 1");
    expect(turnTitle(t, "table 1")).toContain("inherited");
    const priced = { ...t, cost_usd: 0.0031, priced_by: "table" as const, inherited: false };
    expect(turnText(priced)).toBe("1.2k in / 340 out · $0.0031");
    expect(turnTitle(priced, "table 1")).toContain("priced by table 1");
    expect(turnText({ ...t, usage: null })).toBeNull();
  });
});
