import { describe, expect, it } from "vitest";
import { costText, tokensText, usageText, usageTitle } from "./usage";

describe("a turn's usage", () => {
  it("is short, and priced only where the harness priced it", () => {
    const usage = {
      input_tokens: 1234,
      output_tokens: 340,
      cached_input_tokens: 0,
      cache_write_tokens: null,
      reasoning_tokens: null,
      cost_usd: null,
    };
    expect(tokensText(usage)).toBe("1.2k in / 340 out");
    expect(costText(usage)).toBeNull();
    expect(usageText(usage)).toBe("1.2k in / 340 out");
    expect(usageTitle(usage)).toBe("1234 input tokens (0 cached), 340 output tokens, no price reported");
    const priced = { ...usage, input_tokens: 19087, cost_usd: 0.00312 };
    expect(usageText(priced)).toBe("19k in / 340 out · $0.0031");
    expect(costText({ ...priced, cost_usd: 2.5 })).toBe("$2.50");
  });
});
