// @vitest-environment jsdom
import { describe, expect, it } from "vitest";
import { CHUNK_BLOCKS, LiveWorkerDom, type StreamPort } from "./liveWorker";
import { StreamParse } from "./streamParse";
import { failedReply, type StreamReply, type StreamRequest } from "./streamProtocol";
import { REPLY, finalShape, manualFrames, shape } from "../testing/markdown";

/**
 * The worker's side in-process: requests queue up until `deliver()` runs them the way the
 * worker does (one parse for all queued requests of a stream), and frames run on `frame()`.
 */
function harness(options: { failing?: boolean } = {}) {
  const el = document.createElement("div");
  const parses = new Map<number, StreamParse>();
  const listeners = new Map<number, (r: StreamReply) => void>();
  const queued: StreamRequest[] = [];
  const closed: number[] = [];
  const port: StreamPort = {
    post: (r) => (r.kind === "close" ? closed.push(r.id) : queued.push(r)),
    listen: (id, f) => {
      listeners.set(id, f);
      return () => listeners.delete(id);
    },
  };
  const deliver = () => {
    const touched = new Map<number, number>();
    for (const r of queued.splice(0)) {
      if (r.kind === "close") continue;
      const p = parses.get(r.id) ?? new StreamParse();
      parses.set(r.id, p);
      if (r.kind === "set") p.set(r.text);
      else p.append(r.text);
      touched.set(r.id, r.seq);
    }
    for (const [id, seq] of touched) {
      const reply: StreamReply = options.failing
        ? failedReply(id, seq)
        : { id, seq, ...(parses.get(id) as StreamParse).take() };
      listeners.get(id)?.(reply);
    }
  };
  const frames = manualFrames();
  // The sanitizing task between frames, run by hand before each frame.
  const tasks = manualFrames();
  const live = new LiveWorkerDom(el, port, frames.schedule, tasks.schedule);
  const frame = () => {
    tasks.frame();
    frames.frame();
  };
  /** Delivers and runs frames until everything sent is shown. */
  const settle = () => {
    deliver();
    frame();
    for (let i = 0; i < 1000 && !live.settled; i++) frame();
  };
  return { el, live, frame, deliver, settle, closed, queued, frames, tasks };
}

describe("LiveWorkerDom", () => {
  it("streams to the same blocks as the final rendering, sanitized", () => {
    const { el, live, settle, frame, deliver } = harness();
    for (let i = 7; i < REPLY.length; i += 7) {
      live.update(REPLY.slice(0, i));
      // Sometimes several deltas per answer, sometimes frames in between.
      if (i % 21 === 0) settle();
      else if (i % 5 === 0) {
        deliver();
        frame();
      }
    }
    live.update(REPLY);
    settle();
    expect(shape(el)).toEqual(finalShape(REPLY));
    expect(el.querySelector("pre.code code .hljs-keyword")).toBeTruthy();
    const links = Array.from(el.querySelectorAll("a"));
    expect(links.find((a) => a.textContent === "docs")?.getAttribute("data-external")).toBe("true");
    // The javascript: link keeps its text and loses its target.
    expect(links.find((a) => a.textContent === "bad")?.hasAttribute("href")).toBe(false);
  });

  it("shows a short first text at once, before the worker answers", () => {
    const { el, live, queued } = harness();
    live.update("Hello **there**");
    expect(el.querySelector("strong")?.textContent).toBe("there");
    expect(queued).toHaveLength(1);
  });

  it("sends appends, not the whole text, while the text grows", () => {
    const { live, queued } = harness();
    live.update("one ");
    live.update("one two ");
    live.update("one two three");
    expect(queued.map((r) => (r.kind === "close" ? "" : `${r.kind}:${r.text}`))).toEqual([
      "set:one ",
      "append:two ",
      "append:three",
    ]);
  });

  it("starts over when the text is replaced", () => {
    const { el, live, settle } = harness();
    live.update("# First\n\nsome text\n\nmore");
    settle();
    live.update("Other text\n\n- a\n- b");
    settle();
    expect(shape(el)).toEqual(finalShape("Other text\n\n- a\n- b"));
  });

  it("shows a long answer over several frames, the open block last", () => {
    const { el, live, deliver, frame } = harness();
    const long = Array.from({ length: 400 }, (_, i) => `Paragraph ${i} with \`code\` and *emphasis*.`).join("\n\n");
    live.update("start");
    deliver();
    frame();
    live.update(`start\n\n${long}\n\nthe open end`);
    deliver();
    let frames = 0;
    while (!live.settled && frames < 1000) {
      frame();
      frames++;
    }
    expect(live.settled).toBe(true);
    expect(shape(el)).toEqual(finalShape(`start\n\n${long}\n\nthe open end`));
    // The open block is last, in the last group of blocks.
    expect(el.lastElementChild?.lastElementChild?.textContent).toBe("the open end");
    expect(Array.from(el.children).every((c) => c.className === "md-chunk")).toBe(true);
    expect(el.children.length).toBe(Math.ceil(402 / CHUNK_BLOCKS));
  });

  it("sanitizes between frames: a frame inserts only what a task made ready", () => {
    const { el, live, deliver, frames, tasks } = harness();
    const text = Array.from({ length: 30 }, (_, i) => `Paragraph ${i}.`).join("\n\n");
    live.update(`${"x".repeat(20 * 1024)}\n\n${text}`);
    deliver();
    frames.frame();
    // Too long to show at once, and nothing sanitized yet: the frame had nothing to insert.
    expect(el.children).toHaveLength(0);
    tasks.frame();
    frames.frame();
    expect(shape(el).length).toBeGreaterThan(0);
    for (let i = 0; i < 100 && !live.settled; i++) {
      tasks.frame();
      frames.frame();
    }
    expect(shape(el)).toEqual(finalShape(`${"x".repeat(20 * 1024)}\n\n${text}`));
  });

  it("groups the blocks, and no group starts with a heading or a rule", () => {
    const { el, live, settle } = harness();
    const parts = Array.from({ length: 120 }, (_, i) =>
      i % 5 === 0 ? `## Part ${i}` : i % 11 === 0 ? "---" : `Text ${i} of the part.`,
    );
    const text = parts.join("\n\n");
    for (let i = 40; i < text.length; i += 40) {
      live.update(text.slice(0, i));
      settle();
    }
    live.update(text);
    settle();
    expect(shape(el)).toEqual(finalShape(text));
    const groups = Array.from(el.children);
    expect(groups.length).toBeGreaterThan(2);
    for (const [i, group] of groups.entries()) {
      expect(group.className).toBe("md-chunk");
      if (i > 0) expect(group.firstElementChild?.tagName).toMatch(/^(P|UL|OL|PRE|TABLE|BLOCKQUOTE)$/);
      if (i < groups.length - 1) expect(group.children.length).toBeGreaterThanOrEqual(CHUNK_BLOCKS);
    }
  });

  it("falls back to rendering on the page when the worker fails", () => {
    const { el, live, settle } = harness({ failing: true });
    live.update("# Title\n\ntext");
    settle();
    live.update("# Title\n\ntext and more");
    settle();
    expect(shape(el)).toEqual(finalShape("# Title\n\ntext and more"));
  });

  it("tells the worker when the stream is gone", () => {
    const { live, closed } = harness();
    live.update("x");
    live.dispose();
    expect(closed).toHaveLength(1);
  });
});

describe("StreamParse", () => {
  it("parses each completed block once and hands them over in pieces", () => {
    const parse = new StreamParse();
    const text = Array.from({ length: 60 }, (_, i) => `Block ${i}: ${"word ".repeat(40)}`).join("\n\n");
    parse.set(text);
    const first = parse.take();
    expect(first.blocks.length).toBeGreaterThan(1);
    expect(first.parsedChars).toBeGreaterThanOrEqual(text.length);
    parse.append(" tail");
    const second = parse.take();
    expect(second.blocks).toEqual([]);
    expect(second.tail).toContain("tail");
    expect(second.generation).toBe(first.generation);
  });
});
