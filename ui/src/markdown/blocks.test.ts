// @vitest-environment jsdom
import { describe, expect, it } from "vitest";
import { BlockSplitter } from "./blocks";
import { lexBlocks } from "./parse";

function splitter() {
  return new BlockSplitter(lexBlocks);
}

describe("BlockSplitter", () => {
  it("keeps the last block open until the next one begins", () => {
    const s = splitter();
    expect(s.split("Hello")).toMatchObject({ blocks: [], tail: "Hello" });
    expect(s.split("Hello world\n\n")).toMatchObject({ blocks: [], tail: "Hello world\n\n" });
    const next = s.split("Hello world\n\n# Title");
    expect(next.blocks).toEqual(["Hello world"]);
    expect(next.tail).toBe("# Title");
    expect(s.stableLength).toBe("Hello world\n\n".length);
  });

  it("splits paragraphs, lists and headings into blocks; a list stays one block", () => {
    const s = splitter();
    const text = "Intro line\nsecond line\n\n1. one\n\n2. two\n\n## Next\n\nlast";
    const { blocks, tail } = s.split(text);
    expect(blocks).toEqual(["Intro line\nsecond line", "1. one\n\n2. two", "## Next"]);
    expect(tail).toBe("last");
    expect(blocks.join("") + tail).not.toBe(text); // the blank lines between are not blocks
  });

  it("a code fence left open keeps the rest as its content", () => {
    const s = splitter();
    const open = s.split("Before\n\n```rust\nfn main() {}\n\n# not a heading\n\nstill code");
    expect(open.blocks).toEqual(["Before"]);
    expect(open.fence).toEqual({ lang: "rust", code: "fn main() {}\n\n# not a heading\n\nstill code" });
    const closed = s.split("Before\n\n```rust\nfn main() {}\n\n# not a heading\n\nstill code\n```\n\nAfter");
    expect(closed.blocks).toEqual([
      "Before",
      "```rust\nfn main() {}\n\n# not a heading\n\nstill code\n```",
    ]);
    expect(closed.tail).toBe("After");
    expect(closed.fence).toBeNull();
  });

  it("lexes only what follows the completed blocks, and keeps the array while nothing completes", () => {
    const lexed: string[] = [];
    const s = new BlockSplitter((src) => {
      lexed.push(src);
      return lexBlocks(src);
    });
    s.split("a\n\nb\n\nc");
    const first = s.split("a\n\nb\n\nc and more");
    expect(lexed[1]).toBe("c and more");
    const again = s.split("a\n\nb\n\nc and more, still");
    expect(again.blocks).toBe(first.blocks);
  });

  it("starts over when the text does not extend what it split", () => {
    const s = splitter();
    s.split("one\n\ntwo\n\nthree");
    const before = s.generation;
    const { blocks, tail } = s.split("other\n\nthing");
    expect(s.generation).toBe(before + 1);
    expect(blocks).toEqual(["other"]);
    expect(tail).toBe("thing");
  });

  it("does not split text with carriage returns (the lexer rewrites them)", () => {
    const { blocks, tail } = splitter().split("a\r\n\r\nb");
    expect(blocks).toEqual([]);
    expect(tail).toBe("a\r\n\r\nb");
  });

  it("hands over the tokens it made: the blocks just completed and the tail", () => {
    const s = splitter();
    const first = s.split("# Title\n\nsome text");
    expect(first.fresh.map((t) => t.type)).toEqual(["heading", "space"]);
    expect(first.tailTokens?.map((t) => t.type)).toEqual(["paragraph"]);
    const again = s.split("# Title\n\nsome text still");
    expect(again.fresh).toEqual([]);
    expect(s.split("a\r\nb").tailTokens).toBeNull();
  });
});
