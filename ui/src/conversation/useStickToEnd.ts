// The conversation list stays at its end while the user is there: new turns and streamed text
// arrive at the end, and reading them should not take a scroll each time. Scrolling up lets go
// (the list's onScroll sets `stick`); a new approval request brings the end back.
import { type RefObject, useEffect, useLayoutEffect, useRef } from "react";

export function useStickToEnd(
  scrollRef: RefObject<HTMLDivElement | null>,
  options: {
    /** Open at the end (nothing kept from an earlier showing of the tab). */
    atStart: boolean;
    rowCount: number;
    /** The thread's approval requests waiting for an answer. */
    waiting: number;
    /** The list is rendered (the thread's detail is in). */
    hasList: boolean;
  },
) {
  const stick = useRef(options.atStart);
  const { rowCount, waiting, hasList } = options;

  // After every render: rows added or grown keep the end in view.
  useLayoutEffect(() => {
    const el = scrollRef.current;
    if (el && stick.current && rowCount > 0) {
      el.scrollTop = el.scrollHeight;
    }
  });

  // The approval cards sit between the list and the composer, in the layout flow: when one
  // comes (or grows, or goes) the list's box changes size, and its end stays in view.
  useEffect(() => {
    const el = scrollRef.current;
    if (!el || typeof ResizeObserver === "undefined") return;
    const observer = new ResizeObserver(() => {
      if (stick.current) el.scrollTop = el.scrollHeight;
    });
    observer.observe(el);
    return () => observer.disconnect();
  }, [hasList, scrollRef]);

  // A new request also brings the end back into view: what it is about is the newest turn.
  const waitingBefore = useRef(waiting);
  useLayoutEffect(() => {
    const more = waiting > waitingBefore.current;
    waitingBefore.current = waiting;
    const el = scrollRef.current;
    if (more && el) {
      stick.current = true;
      el.scrollTop = el.scrollHeight;
    }
  }, [waiting, scrollRef]);

  return stick;
}
