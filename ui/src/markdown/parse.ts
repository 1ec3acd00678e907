// Markdown → HTML, not yet sanitized: marked with the app's renderer (raw HTML escaped, code
// highlighted by highlight.js, images as links). No DOM is needed, so streamed text is parsed
// in a worker (streamWorker.ts) as well as here; the HTML is sanitized on the page
// (render.ts) before it is shown, wherever it was made.
import { Marked, type Token, type Tokens } from "marked";
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

export function escapeHtml(text: string): string {
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

/** Markdown → HTML (not sanitized). */
export function parseMarkdown(source: string): string {
  return marked.parse(source, { async: false });
}

/** Tokens from `lexBlocks` → HTML (not sanitized). */
export function parseTokens(tokens: Token[]): string {
  return marked.parser(tokens);
}

/** marked's block lexer (for splitting streamed text into blocks). */
export function lexBlocks(source: string): Token[] {
  return marked.lexer(source);
}

/**
 * A fenced code block still being streamed: its text, escaped, in the markup a highlighted one
 * gets (highlighting waits until the block is complete). Only escaped text: safe as it is.
 */
export function renderOpenFence(lang: string, code: string): string {
  const name = lang.trim().split(/\s+/)[0] ?? "";
  const label = name ? `<span class="code__lang">${escapeHtml(name)}</span>` : "";
  return `<pre class="code">${label}<code class="hljs">${escapeHtml(code)}</code></pre>\n`;
}
