import { describe, expect, it } from "vitest";
import { foldedChips } from "./headerFold";

// A 1200 px window less the sidebar: the header's row is about 895 px wide.
const row = { width: 895, fixed: 560, gap: 8, more: 34 };
// A forked Pi thread outside git: its folder chip and Pi's note.
const folder = { key: "folder", width: 250 };
const note = { key: "mode", width: 205 };

describe("the conversation header's chips", () => {
  it("keeps every chip while they fit", () => {
    expect(foldedChips({ ...row, width: 1400 }, [folder, note])).toEqual([]);
    // Exactly the room they need (each chip with its gap), and a pixel of rounding, fit.
    expect(foldedChips({ ...row, width: 560 + 258 + 213 }, [folder, note])).toEqual([]);
    expect(foldedChips({ ...row, width: 560 + 258 + 213 - 0.5 }, [folder, note])).toEqual([]);
    expect(foldedChips(row, [])).toEqual([]);
  });

  it("folds the last chip first, leaving room for +N", () => {
    // 335 px free: the folder chip (258) and +N (42) fit, the note does not.
    expect(foldedChips(row, [folder, note])).toEqual(["mode"]);
    // The folder chip and +N, just: the note folds alone.
    expect(foldedChips({ ...row, width: 560 + 258 + 42 }, [folder, note])).toEqual(["mode"]);
    // The folder chip alone would fit, but not beside +N: both fold.
    expect(foldedChips({ ...row, width: 560 + 258 + 20 }, [folder, note])).toEqual(["folder", "mode"]);
    expect(foldedChips({ ...row, width: 560 + 258 + 40 }, [folder, note])).toEqual(["folder", "mode"]);
  });

  it("folds every chip when even the first does not fit, and never skips one", () => {
    expect(foldedChips({ ...row, width: 700 }, [folder, note])).toEqual(["folder", "mode"]);
    // A small chip after a folded wide one folds too: the row keeps its order.
    const small = { key: "small", width: 20 };
    expect(foldedChips({ ...row, width: 560 + 100 }, [folder, small])).toEqual(["folder", "small"]);
  });

  it("folds a lone chip that does not fit", () => {
    expect(foldedChips({ ...row, width: 560 + 200 }, [folder])).toEqual(["folder"]);
    expect(foldedChips({ ...row, width: 560 + 258 }, [folder])).toEqual([]);
  });
});
