// Shared pieces of the streamed-Markdown tests (liveDom, liveWorker): a reply with every kind of
// block, and an element's top-level blocks as tag and text, to compare with the final rendering.
import type { Schedule } from "../markdown/frame";
import { renderUncached } from "../markdown/render";

export const REPLY = [
  "Here is the plan:",
  "1. read the file\n2. change it\n3. test it",
  "```ts\nconst x: number = 1;\n\nfunction f() {\n  return x;\n}\n```",
  "> a note\n> on two lines",
  "| a | b |\n| - | - |\n| 1 | 2 |",
  "## Done\n\nThat is **all**, see [docs](https://example.com) and [bad](javascript:alert(1)).",
].join("\n\n");

/** The element's top-level blocks: tag and whitespace-folded text (a streamed reply's groups,
 * `div.md-chunk`, are looked through). */
export function shape(el: Element): string[] {
  return Array.from(el.children)
    .flatMap((c) => (c.classList.contains("md-chunk") ? Array.from(c.children) : [c]))
    .map((c) => `${c.tagName}:${c.textContent?.replace(/\s+/g, " ").trim()}`);
}

/** The blocks of `text` rendered whole, as a final message. */
export function finalShape(text: string): string[] {
  const final = document.createElement("div");
  final.innerHTML = renderUncached(text);
  return shape(final);
}

/** Frames run by hand: `schedule` keeps the one asked for, `frame()` runs it. */
export function manualFrames(): { schedule: Schedule; frame: () => void } {
  let pending: (() => void) | null = null;
  const schedule: Schedule = (run) => {
    pending = run;
    return () => {
      pending = null;
    };
  };
  const frame = () => {
    const run = pending;
    pending = null;
    run?.();
  };
  return { schedule, frame };
}
