import { describe, expect, it } from "vitest";
import { overflowOf, revealOffset, scrollStep } from "./overflow";

describe("tab strip overflow", () => {
  it("shows no control while every tab fits", () => {
    expect(overflowOf({ scrollLeft: 0, clientWidth: 600, scrollWidth: 600 })).toEqual({
      overflows: false,
      canLeft: false,
      canRight: false,
    });
    // Half a pixel of rounding is no overflow.
    expect(overflowOf({ scrollLeft: 0, clientWidth: 600, scrollWidth: 600.5 }).overflows).toBe(false);
  });

  it("says which way tabs are hidden", () => {
    expect(overflowOf({ scrollLeft: 0, clientWidth: 600, scrollWidth: 1300 })).toEqual({
      overflows: true,
      canLeft: false,
      canRight: true,
    });
    expect(overflowOf({ scrollLeft: 300, clientWidth: 600, scrollWidth: 1300 })).toEqual({
      overflows: true,
      canLeft: true,
      canRight: true,
    });
    expect(overflowOf({ scrollLeft: 700, clientWidth: 600, scrollWidth: 1300 })).toEqual({
      overflows: true,
      canLeft: true,
      canRight: false,
    });
  });

  it("scrolls most of a width per button press, never past either end", () => {
    const strip = { scrollLeft: 0, clientWidth: 600, scrollWidth: 1300 };
    expect(scrollStep(strip, 1)).toBe(480);
    expect(scrollStep({ ...strip, scrollLeft: 480 }, 1)).toBe(700);
    expect(scrollStep({ ...strip, scrollLeft: 200 }, -1)).toBe(0);
    // A narrow strip still moves by at least 80 px.
    expect(scrollStep({ scrollLeft: 0, clientWidth: 50, scrollWidth: 1000 }, 1)).toBe(80);
  });

  it("brings the active tab wholly into view, moving as little as possible", () => {
    const strip = { scrollLeft: 240, clientWidth: 600, scrollWidth: 1440 };
    // In view: nothing moves.
    expect(revealOffset(strip, { left: 360, width: 120 })).toBeNull();
    // Hidden to the left (whole or in part): its left edge at the strip's left.
    expect(revealOffset(strip, { left: 0, width: 120 })).toBe(0);
    expect(revealOffset(strip, { left: 180, width: 120 })).toBe(180);
    // Hidden to the right: its right edge at the strip's right.
    expect(revealOffset(strip, { left: 1320, width: 120 })).toBe(840);
    expect(revealOffset(strip, { left: 780, width: 120 })).toBe(300);
    // Wider than the strip: from its left edge.
    expect(revealOffset({ ...strip, clientWidth: 100 }, { left: 600, width: 120 })).toBe(600);
  });
});
