import { memo, useEffect, useLayoutEffect, useRef, type MouseEvent } from "react";
import { openExternal } from "../ipc";
import { createLive, type Live } from "./liveWorker";
import { renderMarkdown, renderUncached, wholeMode } from "./render";

/** Clicks on links never navigate the web view: http(s)/mailto open in the browser. */
export function onLinkClick(event: MouseEvent<HTMLElement>) {
  const target = event.target as HTMLElement | null;
  const link = target?.closest?.("a");
  if (!link) return;
  event.preventDefault();
  const href = link.getAttribute("href");
  if (href && link.getAttribute("data-external") === "true") void openExternal(href);
}

/** Model text as sanitized Markdown (see render.ts). */
export const Markdown = memo(function Markdown({ text }: { text: string }) {
  return (
    <div
      className="md"
      onClick={onLinkClick}
      // Sanitized by DOMPurify in renderMarkdown; raw HTML in the source was escaped first.
      dangerouslySetInnerHTML={{ __html: renderMarkdown(text) }}
    />
  );
});

/**
 * Text still being streamed, as sanitized Markdown: parsed in the stream worker (liveWorker.ts),
 * completed blocks shown once, the open block at the end at most once per animation frame. Nothing of it goes
 * into the render cache; the final message renders with `Markdown` as before.
 */
export const LiveMarkdown = memo(function LiveMarkdown({ text }: { text: string }) {
  const whole = wholeMode();
  const ref = useRef<HTMLDivElement>(null);
  const live = useRef<Live | null>(null);
  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    live.current ??= createLive(el);
    live.current.update(text);
  }, [text]);
  useEffect(
    () => () => {
      live.current?.dispose();
      live.current = null;
    },
    [],
  );
  if (whole) return <WholeMarkdown text={text} />;
  return <div className="md" data-live="true" ref={ref} onClick={onLinkClick} />;
});

// The benchmarks' "before" (wholeMode): streamed text rendered as it was before the split, all
// of it on every delta, each text cached.
const wholeCache = new Map<string, string>();
function WholeMarkdown({ text }: { text: string }) {
  let html = wholeCache.get(text);
  if (html === undefined) {
    html = renderUncached(text);
    if (wholeCache.size >= 3000) wholeCache.delete(wholeCache.keys().next().value ?? "");
    wholeCache.set(text, html);
  }
  return <div className="md" onClick={onLinkClick} dangerouslySetInnerHTML={{ __html: html }} />;
}
