import { beforeEach, describe, expect, it } from "vitest";
import { resetStore, store } from "../state";
import { parseSelection, select, selectionKey } from "./selection";

beforeEach(resetStore);

describe("selection", () => {
  it("keys carry the turn and role a fork needs", () => {
    const key = selectionKey(3, "assistant", "turn-3:1");
    expect(key).toBe("3|assistant|turn-3:1");
    expect(parseSelection(key)).toEqual({ turn: 3, role: "assistant" });
  });

  it("a key without a turn number or a known role is no fork point", () => {
    expect(parseSelection("x|user|k")).toBeNull();
    expect(parseSelection("2|system|k")).toBeNull();
    expect(parseSelection("")).toBeNull();
  });

  it("is kept per thread and cleared with null", () => {
    select("a", "1|user|k");
    select("b", "2|tool|k");
    select("a", null);
    expect(store.get().selected).toEqual({ b: "2|tool|k" });
  });
});
