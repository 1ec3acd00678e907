// Model output → safe HTML. Three layers, so that no model text can run script in the web view:
// 1. marked renders Markdown, with raw HTML in the source escaped to text (never passed through);
// 2. DOMPurify sanitizes the result (no handlers, no javascript: URLs, no active elements);
// 3. the app's CSP allows scripts from the app bundle only.
import { Marked, type Tokens } from "marked";
import DOMPurify from "dompurify";
import hljs from "highlight.js/lib/core";
import bash from "highlight.js/lib/languages/bash";
import css from "highlight.js/lib/languages/css";
import diff from "highlight.js/lib/languages/diff";
import go from "highlight.js/lib/languages/go";
import javascript from "highlight.js/lib/languages/javascript";
import json from "highlight.js/lib/languages/json";
import markdown from "highlight.js/lib/languages/markdown";
import python from "highlight.js/lib/languages/python";
import rust from "highlight.js/lib/languages/rust";
import shell from "highlight.js/lib/languages/shell";
import sql from "highlight.js/lib/languages/sql";
import typescript from "highlight.js/lib/languages/typescript";
import xml from "highlight.js/lib/languages/xml";
import yaml from "highlight.js/lib/languages/yaml";

const languages = {
  bash,
  css,
  diff,
  go,
  javascript,
  json,
  markdown,
  python,
  rust,
  shell,
  sql,
  typescript,
  xml,
  yaml,
};
for (const [name, lang] of Object.entries(languages)) {
  hljs.registerLanguage(name, lang);
}
hljs.registerAliases(["sh", "zsh", "console"], { languageName: "bash" });
hljs.registerAliases(["js", "jsx", "mjs", "cjs"], { languageName: "javascript" });
hljs.registerAliases(["ts", "tsx"], { languageName: "typescript" });
hljs.registerAliases(["py"], { languageName: "python" });
hljs.registerAliases(["rs"], { languageName: "rust" });
hljs.registerAliases(["html", "svg"], { languageName: "xml" });
hljs.registerAliases(["yml", "toml"], { languageName: "yaml" });
hljs.registerAliases(["md"], { languageName: "markdown" });
hljs.registerAliases(["patch"], { languageName: "diff" });

function escapeHtml(text: string): string {
  return text
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&#39;");
}

/** Code highlighted by highlight.js when its language is known (or guessable and short). */
export function highlight(code: string, lang?: string): { html: string; language: string | null } {
  const name = (lang ?? "").trim().split(/\s+/)[0]?.toLowerCase() ?? "";
  try {
    if (name && hljs.getLanguage(name)) {
      return { html: hljs.highlight(code, { language: name, ignoreIllegals: true }).value, language: name };
    }
    if (!name && code.length < 20_000) {
      const auto = hljs.highlightAuto(code, Object.keys(languages));
      if (auto.language && auto.relevance >= 5) {
        return { html: auto.value, language: auto.language };
      }
    }
  } catch {
    // Fall through to plain text.
  }
  return { html: escapeHtml(code), language: name || null };
}

const marked = new Marked({
  gfm: true,
  breaks: false,
  renderer: {
    // Raw HTML in model output is shown as the text it is, never interpreted.
    html({ text }: Tokens.HTML | Tokens.Tag): string {
      return escapeHtml(text);
    },
    code({ text, lang }: Tokens.Code): string {
      const { html, language } = highlight(text, lang);
      const label = language ? `<span class="code__lang">${escapeHtml(language)}</span>` : "";
      return `<pre class="code">${label}<code class="hljs">${html}</code></pre>\n`;
    },
    // Images from model output are not fetched; they become links.
    image({ href, text }: Tokens.Image): string {
      return `<a href="${escapeHtml(href)}">${escapeHtml(text || href)}</a>`;
    },
  },
});

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

/** Sanitizes HTML for display: no scripts, handlers, active elements or unsafe URLs. */
export function sanitize(html: string): string {
  installHooks();
  return DOMPurify.sanitize(html, {
    FORBID_TAGS,
    FORBID_ATTR: ["style", "srcset", "action", "formaction", "xlink:href"],
    ALLOW_DATA_ATTR: false,
    ALLOWED_URI_REGEXP: /^(?:https?:|mailto:)/i,
  });
}

const cache = new Map<string, string>();
const CACHE_LIMIT = 3000;

/** Markdown → sanitized HTML, cached by source text. */
export function renderMarkdown(source: string): string {
  const hit = cache.get(source);
  if (hit !== undefined) return hit;
  let html: string;
  try {
    html = sanitize(marked.parse(source, { async: false }));
  } catch {
    html = `<p>${escapeHtml(source)}</p>`;
  }
  if (cache.size >= CACHE_LIMIT) {
    const oldest = cache.keys().next().value;
    if (oldest !== undefined) cache.delete(oldest);
  }
  cache.set(source, html);
  return html;
}
