// Streamed Markdown split into the blocks that are complete (stable: rendered once) and the open
// block at the end (re-rendered as text arrives). marked's lexer decides where blocks end, so a
// code fence left open keeps everything after it as its content, a list stays one list until a
// block after it begins, and so on: a block is complete once the next one has started.
import type { Token } from "marked";

export type Lex = (source: string) => Token[];

export interface Split {
  /** Completed blocks, in order (the same array while none were added). */
  blocks: string[];
  /** The source of the open block at the end (with any blank lines after it). */
  tail: string;
  /** The tail is one fenced code block (open or not): shown as plain text until it is stable. */
  fence: { lang: string; code: string } | null;
  /** The tokens of the blocks this call completed (empty when none), to render without lexing
   * them again. */
  fresh: Token[];
  /** The tail's tokens; `null` when it was not lexed (text with carriage returns). */
  tailTokens: Token[] | null;
}

/**
 * Splits a growing text. Each call lexes only what follows the completed blocks; when the text
 * no longer extends what was split before, it starts over.
 */
export class BlockSplitter {
  private stable = "";
  private blocks: string[] = [];
  /** Counts the times the text did not extend the previous one (and splitting started over). */
  generation = 0;

  constructor(private readonly lex: Lex) {}

  /** How many characters the completed blocks cover. */
  get stableLength(): number {
    return this.stable.length;
  }

  split(text: string): Split {
    if (!text.startsWith(this.stable)) {
      this.stable = "";
      this.blocks = [];
      this.generation++;
    }
    let tail = text.slice(this.stable.length);
    // marked normalizes line ends, so the tokens' raw text would not add up: no split then.
    let tokens: Token[];
    let lexed = !tail.includes("\r");
    try {
      tokens = lexed ? this.lex(tail) : [];
    } catch {
      tokens = [];
      lexed = false;
    }
    let fresh: Token[] = [];
    let last = tokens.length - 1;
    while (last >= 0 && tokens[last]?.type === "space") last--;
    if (last > 0) {
      const added: string[] = [];
      let covered = "";
      for (let i = 0; i < last; i++) {
        const token = tokens[i];
        if (!token) continue;
        covered += token.raw;
        if (token.type !== "space") added.push(token.raw);
      }
      if (covered.length > 0 && tail.startsWith(covered)) {
        this.stable += covered;
        this.blocks = this.blocks.concat(added);
        tail = tail.slice(covered.length);
        fresh = tokens.slice(0, last);
        tokens = tokens.slice(last);
      }
    }
    const open = tokens.filter((t) => t.type !== "space");
    const only = open.length === 1 ? open[0] : undefined;
    const fence =
      only?.type === "code" && /^ {0,3}(`{3,}|~{3,})/.test(only.raw)
        ? { lang: String(only.lang ?? ""), code: String(only.text ?? "") }
        : null;
    return { blocks: this.blocks, tail, fence, fresh, tailTokens: lexed ? tokens : null };
  }
}
