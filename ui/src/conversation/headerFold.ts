// The conversation header when its chips do not fit (a narrow window, a long folder chip, Pi's
// note): which chips stay in the row and which fold into its "+N" menu, as the tab strip folds
// its tabs into a menu (tabs/overflow.ts). Pure: ConversationHeader.tsx measures the row.
// Only chips fold, never a button: what the header does stays one click away.

/** A chip the row can fold, at the width it takes unfolded. */
export interface HeaderChip {
  key: string;
  width: number;
}

/** The header's row as the DOM measures it. */
export interface HeaderRow {
  /** The row's width. */
  width: number;
  /** What the row keeps besides the chips (title, badges, the folder's path at its least, the
   * buttons), with the gaps between them. */
  fixed: number;
  /** The gap before each chip (and before "+N"). */
  gap: number;
  /** The "+N" button's width. */
  more: number;
}

/** Sub-pixel layouts leave a pixel or so of "overflow" that is none. */
const SLACK = 1;

/**
 * The keys of the chips that fold, given in the order they keep their place: the first chip
 * folds last. Nothing folds while every chip fits; once one does not, "+N" takes its room and
 * the chips after the last that still fits all fold, so the row never skips one.
 */
export function foldedChips(row: HeaderRow, chips: HeaderChip[]): string[] {
  const free = row.width - row.fixed;
  const all = chips.reduce((sum, c) => sum + c.width + row.gap, 0);
  if (all <= free + SLACK) return [];
  let room = free - row.more - row.gap;
  let kept = 0;
  for (const chip of chips) {
    room -= chip.width + row.gap;
    if (room < -SLACK) break;
    kept++;
  }
  return chips.slice(kept).map((c) => c.key);
}
