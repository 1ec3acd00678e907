// The tab strip when its tabs do not fit: whether it overflows and which way it can scroll (the
// ‹ › buttons and the "every tab" menu show then), how far a scroll button moves it, and where
// to scroll so that a tab (the active one) is wholly in view. Pure: measured by Workspace.tsx.

/** A scrolling strip as the DOM measures it. */
export interface Strip {
  scrollLeft: number;
  clientWidth: number;
  scrollWidth: number;
}

export interface Overflow {
  /** The tabs do not fit: the overflow controls show. */
  overflows: boolean;
  /** There are tabs hidden to the left / to the right. */
  canLeft: boolean;
  canRight: boolean;
}

/** Sub-pixel layouts leave a pixel or so of "overflow" that is none. */
const SLACK = 1;

export function overflowOf(strip: Strip): Overflow {
  const overflows = strip.scrollWidth - strip.clientWidth > SLACK;
  return {
    overflows,
    canLeft: overflows && strip.scrollLeft > SLACK,
    canRight: overflows && strip.scrollLeft + strip.clientWidth < strip.scrollWidth - SLACK,
  };
}

/** Where a scroll button moves the strip: most of a width that way, within its ends. */
export function scrollStep(strip: Strip, direction: -1 | 1): number {
  const step = Math.max(80, Math.round(strip.clientWidth * 0.8));
  const max = Math.max(0, strip.scrollWidth - strip.clientWidth);
  return Math.min(max, Math.max(0, strip.scrollLeft + direction * step));
}

/**
 * The scroll offset that shows a tab (its left edge and width within the strip's content)
 * wholly, moving as little as possible; `null` when it is already in view. A tab wider than the
 * strip shows from its left edge.
 */
export function revealOffset(strip: Strip, tab: { left: number; width: number }): number | null {
  const right = tab.left + tab.width;
  if (tab.left >= strip.scrollLeft - SLACK && right <= strip.scrollLeft + strip.clientWidth + SLACK) return null;
  if (tab.left < strip.scrollLeft || tab.width >= strip.clientWidth) return Math.max(0, tab.left);
  return right - strip.clientWidth;
}
