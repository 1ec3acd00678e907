// Model output → safe HTML. Three layers, so that no model text can run script in the web view:
// 1. marked renders Markdown, with raw HTML in the source escaped to text (never passed through);
// 2. DOMPurify sanitizes the result (no handlers, no javascript: URLs, no active elements);
// 3. the app's CSP allows scripts from the app bundle only.
import DOMPurify from "dompurify";
import { ByteLru } from "./lru";
import { escapeHtml, parseMarkdown } from "./parse";

const FORBID_TAGS = [
  "img",
  "image",
  "svg",
  "math",
  "iframe",
  "frame",
  "object",
  "embed",
  "video",
  "audio",
  "source",
  "style",
  "link",
  "meta",
  "base",
  "form",
  "input",
  "button",
  "textarea",
  "select",
  "script",
  "template",
];

const SAFE_URL = /^(?:https?:|mailto:)/i;

let hooksInstalled = false;
function installHooks() {
  if (hooksInstalled) return;
  hooksInstalled = true;
  DOMPurify.addHook("afterSanitizeAttributes", (node) => {
    if (node.tagName === "A") {
      const href = node.getAttribute("href") ?? "";
      if (!SAFE_URL.test(href.trim())) {
        // Relative, anchor, or any other scheme: keep the text, drop the link.
        node.removeAttribute("href");
      } else {
        node.setAttribute("data-external", "true");
        node.setAttribute("title", href);
      }
      node.removeAttribute("target");
      node.setAttribute("rel", "noopener noreferrer");
    }
  });
}

const CONFIG = {
  FORBID_TAGS,
  FORBID_ATTR: ["style", "srcset", "action", "formaction", "xlink:href"],
  ALLOW_DATA_ATTR: false,
  ALLOWED_URI_REGEXP: /^(?:https?:|mailto:)/i,
};

// One inert document (no browsing context: nothing in it loads or runs) whose element every
// sanitize parses into and cleans in place. DOMPurify's string mode makes a new document per
// call, a fixed cost (time, and garbage until the next collection) paid for every message.
let holder: HTMLElement | null = null;
function holderElement(): HTMLElement | null {
  if (!holder && typeof document !== "undefined") {
    const inert = document.implementation.createHTMLDocument("");
    holder = inert.createElement("div");
    inert.body.appendChild(holder);
  }
  return holder;
}

/** Sanitizes HTML for display: no scripts, handlers, active elements or unsafe URLs. */
export function sanitize(html: string): string {
  installHooks();
  const el = holderElement();
  if (el) {
    try {
      el.innerHTML = html;
      DOMPurify.sanitize(el, { ...CONFIG, IN_PLACE: true });
      return el.innerHTML;
    } catch {
      // Fall back to DOMPurify's own document.
    } finally {
      el.textContent = "";
    }
  }
  return DOMPurify.sanitize(html, CONFIG);
}

/**
 * `sanitize`, as nodes of this document ready to insert: the cleaned nodes move out of the inert
 * document as they are, not written out as HTML and parsed a second time (streamed text inserts
 * a few pieces every frame).
 */
export function sanitizedNodes(html: string): DocumentFragment {
  installHooks();
  const fragment = document.createDocumentFragment();
  const el = holderElement();
  if (el) {
    try {
      el.innerHTML = html;
      DOMPurify.sanitize(el, { ...CONFIG, IN_PLACE: true });
      // Moving a node adopts it into this document; DOMPurify has already cleaned it.
      fragment.append(...Array.from(el.childNodes));
      return fragment;
    } catch {
      // Fall back to DOMPurify's own document.
    } finally {
      el.textContent = "";
    }
  }
  const template = document.createElement("template");
  template.innerHTML = DOMPurify.sanitize(html, CONFIG);
  fragment.append(template.content);
  return fragment;
}

/** How much Markdown was parsed and sanitized (read by the benchmarks under WebDriver). */
export const renderStats = {
  parses: 0,
  chars: 0,
  /** Streamed text: frames rendered, ms in them, ms of layout right after (under WebDriver). */
  liveFrames: 0,
  liveMs: 0,
  liveLayoutMs: 0,
  /** Streamed text sanitized between frames, ms (liveWorker.ts). */
  livePrepareMs: 0,
  /** Streamed text taken into the store (threads/hostEvents.ts): times, and ms in them
   * (the store's update and React's render of it). */
  takes: 0,
  takeMs: 0,
  /** Answers from the stream worker (0: streamed text was parsed on the page). */
  workerReplies: 0,
  measureLayout: false,
};
if (typeof navigator !== "undefined" && navigator.webdriver) {
  renderStats.measureLayout = true;
  (window as unknown as { __forkhostRenderStats?: typeof renderStats }).__forkhostRenderStats =
    renderStats;
}

type BenchWindow = { __forkhostLiveMode?: string };
/**
 * The benchmarks' "before" (under WebDriver only, `window.__forkhostLiveMode = "whole"`):
 * streamed text taken in on every delta and rendered whole, as it was before.
 */
export function wholeMode(): boolean {
  return (
    typeof navigator !== "undefined" &&
    Boolean(navigator.webdriver) &&
    (window as BenchWindow).__forkhostLiveMode === "whole"
  );
}

/** Markdown → sanitized HTML, not cached (streamed text, blocks of it). */
export function renderUncached(source: string): string {
  renderStats.parses++;
  renderStats.chars += source.length;
  try {
    return sanitize(parseMarkdown(source));
  } catch {
    return `<p>${escapeHtml(source)}</p>`;
  }
}

/** Rendered final messages, bounded in bytes (a live turn's text never goes in). */
export const renderCache = new ByteLru(8 * 1024 * 1024);

/** Markdown → sanitized HTML of a final message, cached by its text. */
export function renderMarkdown(source: string): string {
  const hit = renderCache.get(source);
  if (hit !== undefined) return hit;
  const html = renderUncached(source);
  renderCache.set(source, html);
  return html;
}

