// @vitest-environment jsdom
import { describe, expect, it } from "vitest";
import { LiveDom } from "./liveDom";
import { REPLY, manualFrames, shape } from "../testing/markdown";
import { renderCache, renderMarkdown, renderUncached } from "./render";

/** A LiveDom whose frames run when `frame()` is called. */
function harness() {
  const el = document.createElement("div");
  const { schedule, frame } = manualFrames();
  const live = new LiveDom(el, schedule);
  return { el, live, frame };
}

describe("LiveDom", () => {
  it("streams to the same blocks as the final rendering", () => {
    const { el, live, frame } = harness();
    for (let i = 7; i < REPLY.length; i += 7) {
      live.update(REPLY.slice(0, i));
      frame();
    }
    live.update(REPLY);
    frame();
    const final = document.createElement("div");
    final.innerHTML = renderUncached(REPLY);
    expect(shape(el)).toEqual(shape(final));
    expect(el.querySelector("pre.code code .hljs-keyword")).toBeTruthy();
    expect(el.querySelector("a")?.getAttribute("data-external")).toBe("true");
  });

  it("shows the first text at once, then at most once per frame", () => {
    const { el, live, frame } = harness();
    live.update("Hello");
    expect(el.textContent?.trim()).toBe("Hello");
    live.update("Hello, wor");
    live.update("Hello, world");
    expect(el.textContent?.trim()).toBe("Hello");
    const before = live.parses;
    frame();
    expect(el.textContent?.trim()).toBe("Hello, world");
    expect(live.parses).toBe(before + 1);
  });

  it("renders each completed block once; only the open block again", () => {
    const { live, frame } = harness();
    const blocks = Array.from({ length: 40 }, (_, i) => `Paragraph ${i} with some words in it.`);
    const text = blocks.join("\n\n");
    let frames = 0;
    for (let i = 20; i < text.length; i += 20) {
      live.update(text.slice(0, i));
      frame();
      frames++;
    }
    // At most two parses a frame (the blocks completed in it, together, and the open block),
    // and the completed text parsed once.
    expect(live.parses).toBeLessThanOrEqual(2 * frames + 1);
    const lastBlock = blocks[blocks.length - 1] ?? "";
    expect(live.stableChars).toBe(text.length - lastBlock.length);
  });

  it("shows an open code fence as plain text with what follows inside it", () => {
    const { el, live, frame } = harness();
    live.update("Intro\n\n```js\nconst a = 1;\n\n# not a heading");
    frame();
    expect(el.querySelector("h1")).toBeNull();
    const code = el.querySelector("pre.code code");
    expect(code?.textContent).toBe("const a = 1;\n\n# not a heading");
    expect(code?.querySelector(".hljs-keyword")).toBeNull();
    live.update("Intro\n\n```js\nconst a = 1;\n\n# not a heading\n```\n\nAfter");
    frame();
    expect(el.querySelector("pre.code code .hljs-keyword")).toBeTruthy();
    expect(el.lastElementChild?.textContent).toBe("After");
  });

  it("keeps streamed text sanitized, in completed blocks and in the open one", () => {
    const { el, live, frame } = harness();
    const evil = '<img src=x onerror="alert(1)"><script>alert(2)</script>';
    live.update(`${evil}\n\n[x](javascript:alert(3))\n\n${evil}`);
    frame();
    expect(el.querySelector("img, script")).toBeNull();
    expect(el.querySelector("[onerror]")).toBeNull();
    expect(el.innerHTML).not.toMatch(/href="javascript:/);
    expect(el.textContent).toContain("<script>");
    live.update("```\n</code></pre><img src=x onerror=alert(4)>");
    frame();
    expect(el.querySelector("img, script")).toBeNull();
  });

  it("starts over when the text is replaced", () => {
    const { el, live, frame } = harness();
    live.update("one\n\ntwo\n\nthree");
    frame();
    live.update("other");
    frame();
    expect(el.textContent?.trim()).toBe("other");
  });

  it("never puts streamed text in the render cache (only final messages go there)", () => {
    renderCache.clear();
    const { live, frame } = harness();
    live.update("streamed\n\ntext");
    frame();
    live.update("streamed\n\ntext\n\nmore");
    frame();
    expect(renderCache.size).toBe(0);
    renderMarkdown("a final message");
    expect(renderCache.size).toBe(1);
  });
});
