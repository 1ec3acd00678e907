// One streamed text, parsed where it is cheap to do so (the stream worker): the text grows by
// appends, and each `take` splits it into the blocks completed since the last take (each block
// parsed once) and the open block at the end (parsed again each time). The HTML is not
// sanitized here: the page does that before showing it (liveWorker.ts).
import { BlockSplitter } from "./blocks";
import { escapeHtml, lexBlocks, parseMarkdown, parseTokens, renderOpenFence } from "./parse";
import type { Token } from "marked";

/** Completed blocks are handed over in pieces of about this many characters of source. */
const PIECE_CHARS = 1024;

/** What changed since the last take. */
export interface StreamPiece {
  /** Counts restarts (the text stopped extending what was split): a new one means start over. */
  generation: number;
  /** HTML of the blocks completed since the last take, in pieces, in order (none: empty). */
  blocks: string[];
  /** HTML of the open block at the end (may be empty). */
  tail: string;
  /** The open block is a fenced code block, its text only escaped (not parsed). */
  openFence: boolean;
  /** Characters parsed for this piece (for the benchmarks' figures). */
  parsedChars: number;
}

export class StreamParse {
  private text = "";
  private readonly splitter = new BlockSplitter(lexBlocks);
  private stable = 0;
  private generation = -1;

  /** How much of the text the completed blocks taken so far cover. */
  get stableChars(): number {
    return this.stable;
  }

  /** The text is now `text` (not necessarily an extension of what it was). */
  set(text: string): void {
    this.text = text;
  }

  append(delta: string): void {
    this.text += delta;
  }

  take(): StreamPiece {
    const text = this.text;
    const { fresh, tail, fence, tailTokens } = this.splitter.split(text);
    let parsedChars = 0;
    const blocks: string[] = [];
    if (this.splitter.generation !== this.generation) {
      this.generation = this.splitter.generation;
      this.stable = 0;
    }
    const stable = this.splitter.stableLength;
    if (stable > this.stable) {
      const since = stable - this.stable;
      const covered = fresh.reduce((n, t) => n + t.raw.length, 0);
      // The tokens the split just made when they are all that is new (the usual case); else
      // the source between, as it was written.
      if (covered === since) {
        // In pieces of about PIECE_CHARS, so that the page can show them a few at a time.
        let group: typeof fresh = [];
        let size = 0;
        for (const token of fresh) {
          group.push(token);
          size += token.raw.length;
          if (size >= PIECE_CHARS) {
            blocks.push(tokensHtml(group));
            group = [];
            size = 0;
          }
        }
        if (group.length > 0) blocks.push(tokensHtml(group));
      } else {
        blocks.push(sourceHtml(text.slice(this.stable, stable)));
      }
      parsedChars += since;
      this.stable = stable;
    }
    let tailHtml = "";
    if (fence) {
      tailHtml = renderOpenFence(fence.lang, fence.code);
    } else if (tail.trim()) {
      tailHtml = tailTokens ? tokensHtml(tailTokens) : sourceHtml(tail);
      parsedChars += tail.length;
    }
    return { generation: this.generation, blocks, tail: tailHtml, openFence: fence !== null, parsedChars };
  }
}

/** Markdown that marked cannot parse is shown as the text it is. */
function sourceHtml(source: string): string {
  try {
    return parseMarkdown(source);
  } catch {
    return `<p>${escapeHtml(source)}</p>`;
  }
}

function tokensHtml(tokens: Token[]): string {
  try {
    return parseTokens(tokens);
  } catch {
    return `<p>${escapeHtml(tokens.map((t) => t.raw).join(""))}</p>`;
  }
}
