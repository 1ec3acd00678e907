import { memo, type MouseEvent } from "react";
import { openExternal } from "../ipc";
import { renderMarkdown } from "./render";

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
