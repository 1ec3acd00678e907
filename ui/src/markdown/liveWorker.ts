// Streamed text shown as Markdown with the parsing done in the stream worker (streamWorker.ts):
// the page sends the text's appends, and shows what comes back: the completed blocks appended
// once, and the open block at the end replaced once the blocks have caught up. What comes back
// is sanitized (as all model output) in short tasks between frames, so that a frame only inserts
// nodes that are ready: the frame's own work stays small beside its layout and paint. The main
// thread never lexes or highlights streamed text, so frames stay free while a reply streams.
// The blocks go into groups (`div.md-chunk`, styles/markdown.css) of CHUNK_BLOCKS: a group is
// laid out and painted as a unit and skipped while off screen, so a frame that appends a block
// lays out and paints that block's group, not the whole reply above it.
// Where no worker can run (tests, a failed worker) LiveDom does it all on the page.
import { FrameCoalescer, type Schedule, nextFrame, nextTask, spaced, spacedAfter } from "./frame";
import { LiveDom } from "./liveDom";
import { renderStats, renderUncached, sanitizedNodes } from "./render";
import { failedReply, type StreamReply, type StreamRequest } from "./streamProtocol";

/** Where requests go and replies come from: the worker, or a stand-in in tests. */
export interface StreamPort {
  post(request: StreamRequest): void;
  listen(id: number, onReply: (reply: StreamReply) => void): () => void;
}

/** Main-thread time per frame for inserting sanitized pieces (at least one is inserted). */
const BUDGET_MS = 3;
/** Main-thread time per task for sanitizing pieces between frames (at least one is done). */
const PREPARE_MS = 4;
/** A first text up to this size is shown at once, rendered here, until the worker answers. */
const FIRST_SYNC_CHARS = 16 * 1024;
/** Completed blocks (top-level elements) per group (`div.md-chunk`). */
export const CHUNK_BLOCKS = 24;
/** Blocks with a top margin: a group never starts with one, since margins do not collapse
 * across a group's edge (it is its own formatting context); elsewhere the gap is the same. */
const TOP_MARGIN = /^(H[1-6]|HR)$/;

let nextId = 1;

/** What LiveMarkdown drives: the worker's way or the page's own. */
export interface Live {
  update(text: string): void;
  dispose(): void;
}

export class LiveWorkerDom implements Live {
  private readonly id = nextId++;
  private sent: string | null = null;
  private seq = 0;
  private generation = -1;
  /** Pieces from the worker, to sanitize; then sanitized, to insert at the next frame. */
  private queue: string[] = [];
  private ready: DocumentFragment[] = [];
  /** The open block as last sanitized (`tailNodes`, not yet shown) and for which text. */
  private tailNodes: DocumentFragment | null = null;
  private tailReady: string | null = null;
  private restart = false;
  /** The first text, rendered here, shown until the worker's first answer is all in. */
  private provisional = false;
  private tail = "";
  private tailShown: string | null = null;
  /** The group blocks go into now, and the tail after them; its settled nodes and blocks. */
  private group: HTMLElement | null = null;
  private stableNodes = 0;
  private groupBlocks = 0;
  private fallback: LiveDom | null = null;
  private readonly frames: FrameCoalescer;
  private readonly preparing: FrameCoalescer;
  private readonly unlisten: () => void;
  /** The last answer covers every request sent, and all of it is shown (for tests). */
  get settled(): boolean {
    return (
      this.answered === this.seq &&
      this.queue.length === 0 &&
      this.ready.length === 0 &&
      !this.frames.pending &&
      !this.preparing.pending
    );
  }
  private answered = 0;
  /** performance.now() before which the next frame's work waits. */
  private notBefore = 0;

  constructor(
    private readonly el: HTMLElement,
    private readonly port: StreamPort,
    /** Frames (tests run them by hand); by default animation frames, spaced out by cost. */
    private readonly schedule?: Schedule,
    /** Tasks between frames (tests run them by hand); by default a 0 ms timer. */
    prepare: Schedule = nextTask,
  ) {
    const frames = schedule ?? spaced(nextFrame, () => this.notBefore - performance.now());
    this.frames = new FrameCoalescer(() => this.render(), frames);
    this.preparing = new FrameCoalescer(() => this.prepare(), prepare);
    this.unlisten = port.listen(this.id, (reply) => this.onReply(reply));
  }

  update(text: string): void {
    if (this.fallback) {
      this.fallback.update(text);
      return;
    }
    if (this.sent === null) {
      if (text.length <= FIRST_SYNC_CHARS) {
        this.el.innerHTML = renderUncached(text);
        this.provisional = true;
      }
      this.post("set", text);
    } else if (text === this.sent) {
      return;
    } else if (text.startsWith(this.sent)) {
      this.post("append", text.slice(this.sent.length));
    } else {
      this.post("set", text);
    }
    this.sent = text;
  }

  dispose(): void {
    this.frames.dispose();
    this.preparing.dispose();
    this.unlisten();
    this.port.post({ kind: "close", id: this.id });
    this.fallback?.dispose();
  }

  private post(kind: "set" | "append", text: string): void {
    this.seq++;
    this.port.post({ kind, id: this.id, seq: this.seq, text });
  }

  private onReply(reply: StreamReply): void {
    if (this.fallback) return;
    if (reply.failed) {
      this.frames.dispose();
      this.preparing.dispose();
      this.el.textContent = "";
      this.fallback = new LiveDom(this.el, this.schedule);
      this.fallback.update(this.sent ?? "");
      return;
    }
    this.answered = reply.seq;
    renderStats.workerReplies++;
    renderStats.parses += reply.blocks.length + (reply.tail ? 1 : 0);
    renderStats.chars += reply.parsedChars;
    if (reply.generation !== this.generation) {
      this.generation = reply.generation;
      this.queue = [];
      this.ready = [];
      this.tailNodes = null;
      this.tailReady = null;
      this.restart = true;
    }
    this.queue.push(...reply.blocks);
    this.tail = reply.tail;
    this.preparing.request();
  }

  /** Sanitizes what came back, a few pieces per task, then the open block; asks for a frame. */
  private prepare(): void {
    const started = performance.now();
    while (this.queue.length > 0) {
      this.ready.push(sanitizedNodes(this.queue.shift() ?? ""));
      if (performance.now() - started > PREPARE_MS) break;
    }
    if (this.queue.length > 0) this.preparing.request();
    else this.prepareTail();
    renderStats.livePrepareMs += performance.now() - started;
    this.frames.request();
  }

  private render(): void {
    const started = performance.now();
    const el = this.el;
    // The provisional text is replaced at once by the first answer, all of it (it is short).
    const unbounded = this.provisional;
    if (this.restart || this.provisional) {
      el.textContent = "";
      this.group = null;
      this.stableNodes = 0;
      this.groupBlocks = 0;
      this.tailShown = null;
      this.restart = false;
      this.provisional = false;
    }
    if (unbounded) this.prepareAll();
    while (this.ready.length > 0) {
      this.dropTail();
      this.appendBlocks(this.ready.shift() as DocumentFragment);
      if (!unbounded && performance.now() - started > BUDGET_MS) break;
    }
    if (this.ready.length > 0) {
      // The rest next frame; the open block waits until the blocks before it are in.
      this.frames.request();
    } else if (this.queue.length === 0 && this.tailReady !== null && this.tailReady !== this.tailShown) {
      this.dropTail();
      // A copy: the same open block may be shown again after blocks come in before it.
      if (this.tailNodes) (this.group ?? this.newGroup()).append(this.tailNodes.cloneNode(true));
      this.tailShown = this.tailReady;
    }
    const done = performance.now();
    this.notBefore = spacedAfter(started, done);
    renderStats.liveFrames++;
    renderStats.liveMs += done - started;
    if (renderStats.measureLayout) {
      void el.offsetHeight;
      renderStats.liveLayoutMs += performance.now() - done;
    }
  }

  /** Everything sanitized now (the first answer replaces the provisional text in one frame). */
  private prepareAll(): void {
    while (this.queue.length > 0) this.ready.push(sanitizedNodes(this.queue.shift() ?? ""));
    this.prepareTail();
  }

  /** The open block sanitized, once per text of it. */
  private prepareTail(): void {
    if (this.tail === this.tailReady) return;
    this.tailNodes = this.tail ? sanitizedNodes(this.tail) : null;
    this.tailReady = this.tail;
  }

  private dropTail(): void {
    const group = this.group;
    if (group) while (group.childNodes.length > this.stableNodes) group.lastChild?.remove();
    this.tailShown = null;
  }

  /** Completed blocks into the groups: a new group once this one is full, at a block without a
   * top margin (one with it stays with the blocks before it). */
  private appendBlocks(blocks: DocumentFragment): void {
    let group = this.group ?? this.newGroup();
    for (const node of Array.from(blocks.childNodes)) {
      if (node instanceof Element) {
        if (this.groupBlocks >= CHUNK_BLOCKS && !TOP_MARGIN.test(node.tagName)) group = this.newGroup();
        this.groupBlocks++;
      }
      group.append(node);
    }
    this.stableNodes = group.childNodes.length;
  }

  private newGroup(): HTMLElement {
    const group = document.createElement("div");
    group.className = "md-chunk";
    this.el.append(group);
    this.group = group;
    this.stableNodes = 0;
    this.groupBlocks = 0;
    return group;
  }
}

type Shared = { worker: Worker; listeners: Map<number, (reply: StreamReply) => void> };
/** The window's stream worker: started with the first stream; null once it failed. */
let shared: Shared | null | undefined;

function failAll(listeners: Map<number, (reply: StreamReply) => void>) {
  for (const [id, listen] of listeners) {
    listen(failedReply(id, 0));
  }
}

/** A port to the window's stream worker, or null where workers cannot run. */
export function workerPort(): StreamPort | null {
  if (shared === undefined) {
    shared = null;
    try {
      if (typeof Worker !== "undefined") {
        const worker = new Worker(new URL("./streamWorker.ts", import.meta.url), { type: "module" });
        const listeners = new Map<number, (reply: StreamReply) => void>();
        worker.onmessage = (event: MessageEvent<StreamReply>) => listeners.get(event.data.id)?.(event.data);
        worker.onerror = () => {
          // Every stream goes on without it, and later ones do not try it again.
          shared = null;
          failAll(listeners);
          worker.terminate();
        };
        shared = { worker, listeners };
      }
    } catch {
      shared = null;
    }
  }
  const s = shared;
  if (!s) return null;
  return {
    post: (request) => s.worker.postMessage(request),
    listen: (id, onReply) => {
      s.listeners.set(id, onReply);
      return () => s.listeners.delete(id);
    },
  };
}

/** Streamed Markdown in `el`: parsed in the worker where one runs, else on the page. */
export function createLive(el: HTMLElement): Live {
  const port = workerPort();
  return port ? new LiveWorkerDom(el, port) : new LiveDom(el);
}
