import { describe, expect, it } from "vitest";
import { forgetScroll, keepScroll, keptOffset, keptScroll } from "./scroll";

describe("kept scroll places", () => {
  const rows = [{ key: "a" }, { key: "b" }, { key: "c" }];
  const estimate = () => 100;

  it("reopen a hidden tab's list at the row it showed", () => {
    keepScroll("t1", { atEnd: false, key: "c", delta: 30 });
    expect(keptOffset(keptScroll("t1"), rows, estimate)).toBe(230);
  });

  it("open at the end when nothing was kept, the list was at its end, or the row is gone", () => {
    expect(keptOffset(keptScroll("nothing"), rows, estimate)).toBeUndefined();
    keepScroll("t2", { atEnd: true, key: "a", delta: 0 });
    expect(keptOffset(keptScroll("t2"), rows, estimate)).toBeUndefined();
    keepScroll("t3", { atEnd: false, key: "gone", delta: 0 });
    expect(keptOffset(keptScroll("t3"), rows, estimate)).toBeUndefined();
    forgetScroll("t1");
    expect(keptScroll("t1")).toBeUndefined();
  });
});
