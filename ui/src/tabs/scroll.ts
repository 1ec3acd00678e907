// Where each conversation's list was scrolled: a hidden tab drops its rendered rows (only the
// shown tab renders), and shows the same place again when it is shown. Per thread, this window.

export interface KeptScroll {
  /** At the end (following new text): the list opens at its end again. */
  atEnd: boolean;
  /** The first row in view and how far the view starts below its top. */
  key: string;
  delta: number;
}

const kept = new Map<string, KeptScroll>();

export function keepScroll(threadId: string, scroll: KeptScroll) {
  kept.set(threadId, scroll);
}

export function keptScroll(threadId: string): KeptScroll | undefined {
  return kept.get(threadId);
}

export function forgetScroll(threadId: string) {
  kept.delete(threadId);
}

/**
 * The list's first scroll offset for a kept place: the estimated top of its row (rows before it
 * are estimated until shown) plus the kept delta; `undefined` when the list should open at its
 * end (nothing kept, at the end, or the row is gone).
 */
export function keptOffset<R extends { key: string }>(
  scroll: KeptScroll | undefined,
  rows: R[],
  estimate: (row: R) => number,
): number | undefined {
  if (!scroll || scroll.atEnd) return undefined;
  let offset = 0;
  for (const row of rows) {
    if (row.key === scroll.key) return Math.max(0, offset + scroll.delta);
    offset += estimate(row);
  }
  return undefined;
}
