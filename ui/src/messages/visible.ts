// Text an approval shows, with every character shown as what it is: the model chose it and the
// user approves what they read. C0 and C1 controls, DEL and the bidi controls (which reorder what
// is shown, e.g. U+202E) become visible `\x1b` / `\u{202e}` escapes; newlines and tabs stay. So do
// the characters that show as nothing or as blank space while not being a plain space: every
// Default_Ignorable code point (zero-width U+200B–U+200D, U+2060, U+FEFF, fillers, variation
// selectors, tags), the line and paragraph separators U+2028/U+2029, the blank-looking letters
// U+2800 (braille blank), U+3164 and U+FFA0 (Hangul fillers), U+115F/U+1160, and the wide spaces
// (U+00A0, U+1680, U+2000–U+200A, U+202F, U+205F, U+3000): a run of them would push a command's
// tail below the card's fold with nothing on screen saying so. The same rule as the CLI's
// `approve::visible`.

// Matching control and invisible characters is this pattern's whole purpose.
const HIDDEN =
  // eslint-disable-next-line no-control-regex
  /[\u0000-\u0008\u000b-\u001f\u007f-\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u2800\u3000\u3164\uffa0\u115f\u1160\p{Default_Ignorable_Code_Point}]/gu;

export function visibleText(text: string): string {
  return text.replace(HIDDEN, (c) => {
    const code = c.codePointAt(0) ?? 0;
    return code < 0x80 ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u{${code.toString(16)}}`;
  });
}

/** How long a text is, for the card's "more below" marker. */
export function textSize(text: string): { lines: number; chars: number } {
  return { lines: text.split("\n").length, chars: [...text].length };
}

/**
 * Lines a card shows before it scrolls: `.approval__body` is 220px high, 16px of it padding and
 * 2px border, at 18px a line, so 11 lines; a twelfth is already (partly) below the fold.
 */
export const SHOWN_LINES = 11;

/**
 * Whether an element holds more than it shows (what the "more below" marker is decided by, once
 * laid out): counts of lines and characters cannot see a line that wraps into many blank rows.
 */
export function needsMore(el: Pick<HTMLElement, "scrollHeight" | "clientHeight"> | null): boolean {
  if (!el) return false;
  return el.scrollHeight > el.clientHeight + 1;
}
