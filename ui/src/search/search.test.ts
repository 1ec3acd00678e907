import { describe, expect, it, vi } from "vitest";
import type { SearchResults } from "../bindings/SearchResults";
import { partWords, searcher, splitHit, type SearchState } from "./search";

describe("splitHit", () => {
  it("cuts at UTF-8 byte offsets", () => {
    // "é" is two bytes: the hit "zebra" starts at byte 4.
    expect(splitHit("é: zebra!", 4, 9)).toEqual(["é: ", "zebra", "!"]);
  });
  it("leaves the snippet whole when the range does not fit", () => {
    expect(splitHit("abc", 2, 9)).toEqual(["abc", "", ""]);
    expect(splitHit("abc", 2, 1)).toEqual(["abc", "", ""]);
  });
});

describe("partWords", () => {
  it("names the turn and the part", () => {
    expect(partWords({ part: "tool_output", turn_number: 3 })).toBe("turn 3 · tool output");
  });
});

const results = (hits: number): SearchResults => ({
  groups: [],
  hits,
  truncated: false,
  files: 0,
  bytes: 0,
  decoded: 0,
  elapsed_ms: 0,
});

describe("searcher", () => {
  it("sends only the last query typed and shows only the newest answer", async () => {
    vi.useFakeTimers();
    const shown: SearchState[] = [];
    const sent: string[] = [];
    let answer: (r: SearchResults) => void = () => {};
    const first = new Promise<SearchResults>((r) => (answer = r));
    const run = vi.fn((text: string) => {
      sent.push(text);
      return text === "ze" ? first : Promise.resolve(results(2));
    });
    const search = searcher((s) => shown.push(s), run, 100);
    search("z");
    search("ze");
    await vi.advanceTimersByTimeAsync(100);
    expect(sent).toEqual(["ze"]);
    search("zebra");
    await vi.advanceTimersByTimeAsync(100);
    answer(results(1)); // the stale answer arrives last
    await vi.runAllTimersAsync();
    const done = shown.filter((s) => s.kind === "done");
    expect(done).toHaveLength(1);
    expect(done[0]).toMatchObject({ query: "zebra", results: { hits: 2 } });
    search("  ");
    expect(shown.at(-1)).toEqual({ kind: "idle" });
    vi.useRealTimers();
  });
});
