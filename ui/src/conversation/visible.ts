// Text an approval shows, with every character shown as what it is: the model chose it and the
// user approves what they read. C0 and C1 controls, DEL and the bidi controls (which reorder what
// is shown, e.g. U+202E) become visible `\x1b` / `\u{202e}` escapes; newlines and tabs stay. The
// same rule as the CLI's `approve::visible`.

// Matching control characters is this pattern's whole purpose.
// eslint-disable-next-line no-control-regex
const HIDDEN = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

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

/** Lines a card shows before it scrolls (its body's height, `.approval__body`). */
export const SHOWN_LINES = 12;
