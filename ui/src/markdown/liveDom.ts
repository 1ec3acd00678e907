// Streamed text shown as Markdown in one element: the completed blocks are parsed, sanitized and
// appended once (those completed within one frame together); only the open block at the end is
// rendered again, at most once per frame, and less often when rendering it costs more than a
// frame's share (the next render waits four times as long as the last one took, at most 200 ms).
// The element's children are flat, as in a final message's rendering (the same CSS applies).
import { FrameCoalescer, type Schedule, nextFrame, spaced, spacedAfter } from "./frame";
import { renderStats, sanitize } from "./render";
import { StreamParse } from "./streamParse";

export class LiveDom {
  private readonly parse = new StreamParse();
  private readonly frames: FrameCoalescer;
  private latest = "";
  private shown: string | null = null;
  private generation = -1;
  private stableNodes = 0;
  /** The open block's HTML as shown (before sanitizing). */
  private tailShown = "";
  /** Blocks and tails parsed and sanitized so far (for tests and the benchmark). */
  parses = 0;

  /** How much of the text the rendered completed blocks cover. */
  get stableChars(): number {
    return this.parse.stableChars;
  }

  /** performance.now() before which the next render waits (its cost spaces renders out). */
  private notBefore = 0;

  constructor(
    private readonly el: HTMLElement,
    schedule?: Schedule,
  ) {
    const frames = schedule ?? spaced(nextFrame, () => this.notBefore - performance.now());
    this.frames = new FrameCoalescer(() => this.render(), frames);
  }

  /** The text now: shown at once the first time, then at the next frame. */
  update(text: string): void {
    this.latest = text;
    if (this.shown === null) this.render();
    else if (text !== this.shown) this.frames.request();
  }

  dispose(): void {
    this.frames.dispose();
  }

  private render(): void {
    const text = this.latest;
    if (text === this.shown) return;
    const started = performance.now();
    this.apply(text);
    const done = performance.now();
    this.notBefore = spacedAfter(started, done);
    renderStats.liveFrames++;
    renderStats.liveMs += done - started;
    if (renderStats.measureLayout) {
      void this.el.offsetHeight;
      renderStats.liveLayoutMs += performance.now() - done;
    }
  }

  private apply(text: string): void {
    this.shown = text;
    const el = this.el;
    this.parse.set(text);
    const piece = this.parse.take();
    if (piece.generation !== this.generation) {
      this.generation = piece.generation;
      el.textContent = "";
      this.stableNodes = 0;
      this.tailShown = "";
    }
    renderStats.chars += piece.parsedChars;
    if (piece.blocks.length > 0) {
      // All the blocks completed since the last frame in one sanitize (each has a fixed cost).
      this.dropTail();
      el.insertAdjacentHTML("beforeend", sanitize(piece.blocks.join("")));
      this.countParse();
      this.stableNodes = el.childNodes.length;
    }
    if (piece.tail !== this.tailShown) {
      this.dropTail();
      // An open fence is only escaped text; anything else is parsed model text.
      el.insertAdjacentHTML("beforeend", piece.openFence ? piece.tail : sanitize(piece.tail));
      if (piece.tail && !piece.openFence) this.countParse();
      this.tailShown = piece.tail;
    }
  }

  private countParse(): void {
    this.parses++;
    renderStats.parses++;
  }

  private dropTail(): void {
    while (this.el.childNodes.length > this.stableNodes) this.el.lastChild?.remove();
    this.tailShown = "";
  }
}
