// @vitest-environment jsdom
import { describe, expect, it, vi } from "vitest";
import { highlight } from "./parse";
import { renderMarkdown, sanitize } from "./render";

function dom(html: string): HTMLElement {
  const div = document.createElement("div");
  div.innerHTML = html;
  return div;
}

describe("renderMarkdown", () => {
  it("renders Markdown: emphasis, lists, inline code, links", () => {
    const el = dom(renderMarkdown("**bold** and `code`\n\n- one\n- two\n\n[site](https://example.com)"));
    expect(el.querySelector("strong")?.textContent).toBe("bold");
    expect(el.querySelector("code")?.textContent).toBe("code");
    expect(el.querySelectorAll("li")).toHaveLength(2);
    const a = el.querySelector("a");
    expect(a?.getAttribute("href")).toBe("https://example.com");
    expect(a?.getAttribute("rel")).toBe("noopener noreferrer");
    expect(a?.getAttribute("data-external")).toBe("true");
  });

  it("highlights fenced code by language", () => {
    const el = dom(renderMarkdown("```rust\nfn main() { let x = 1; }\n```"));
    const code = el.querySelector("pre.code code.hljs");
    expect(code).toBeTruthy();
    expect(code?.querySelector(".hljs-keyword")?.textContent).toBe("fn");
    expect(el.querySelector(".code__lang")?.textContent).toBe("rust");
    expect(highlight("x", "no-such-language").html).toBe("x");
  });

  it("shows raw HTML as text: <img onerror>, <script> and event handlers never become elements", () => {
    const payload =
      'look <img src=x onerror="window.__pwned=1"> and <script>window.__pwned=2</script> <b onclick="x()">b</b>';
    const html = renderMarkdown(payload);
    const el = dom(html);
    expect(el.querySelector("img")).toBeNull();
    expect(el.querySelector("script")).toBeNull();
    expect(el.querySelector("b")).toBeNull();
    expect(el.querySelector("[onerror],[onclick]")).toBeNull();
    // The text is still there for the reader.
    expect(el.textContent).toContain("<img src=x onerror=");
    expect(el.textContent).toContain("<script>");
  });

  it("makes javascript: and other unsafe links inert", () => {
    for (const src of [
      "[click](javascript:window.__pwned=1)",
      "[x](JAVASCRIPT:alert(1))",
      "[d](data:text/html,<script>alert(1)</script>)",
      "[v](vbscript:msgbox)",
      "<javascript:alert(1)>",
    ]) {
      const el = dom(renderMarkdown(src));
      for (const a of Array.from(el.querySelectorAll("a"))) {
        const href = a.getAttribute("href");
        expect(href === null || /^(https?:|mailto:)/i.test(href), `${src} → ${href}`).toBe(true);
      }
      expect(el.innerHTML.toLowerCase()).not.toContain('href="javascript');
    }
  });

  it("turns Markdown images into links (nothing is fetched)", () => {
    const el = dom(renderMarkdown("![alt](https://example.com/a.png)"));
    expect(el.querySelector("img")).toBeNull();
    expect(el.querySelector("a")?.getAttribute("href")).toBe("https://example.com/a.png");
  });
});

describe("sanitize", () => {
  it("removes active content that got past the Markdown layer", () => {
    const el = dom(
      sanitize(
        '<p>ok</p><img src=x onerror=alert(1)><script>alert(1)</script><iframe src="https://x"></iframe>' +
          '<a href="javascript:alert(1)">j</a><svg onload=alert(1)></svg><form><input></form><style>*{}</style>',
      ),
    );
    expect(el.querySelector("p")?.textContent).toBe("ok");
    expect(el.querySelector("img, script, iframe, svg, form, input, style")).toBeNull();
    expect(el.querySelector("a")?.hasAttribute("href")).toBe(false);
  });

  it("cleans in one reused inert document, with what DOMPurify's own document gives", () => {
    const parse = vi.spyOn(DOMParser.prototype, "parseFromString");
    const payloads = [
      '<p>ok <a href="https://example.com">x</a></p>',
      '<img src=x onerror=alert(1)><p onclick="x()">p</p>',
      "<math><mi><style><img src=x onerror=alert(1)></style></mi></math>",
      '<svg><a xlink:href="javascript:alert(1)"><text>t</text></a></svg>',
      "<noscript><p title=\"</noscript><img src=x onerror=alert(1)>\">",
      '<form><math><mtext></form><form><mglyph><style></math><img src onerror=alert(1)>',
      "<template><script>alert(1)</script></template><table><tr><td>c</td></tr></table>",
      '<a href=" javascript:alert(1)">j</a><a href="mailto:a@b.c">m</a>',
    ];
    for (const html of payloads) {
      const el = dom(sanitize(html));
      expect(el.querySelector("img, script, svg, math, style, form, template, [onerror], [onclick]"), html).toBeNull();
      for (const a of Array.from(el.querySelectorAll("a"))) {
        const href = a.getAttribute("href");
        expect(href === null || /^(https?:|mailto:)/i.test(href), html).toBe(true);
      }
    }
    expect(parse).not.toHaveBeenCalled();
    parse.mockRestore();
    expect(dom(sanitize("<p>a</p><p>b</p>")).querySelectorAll("p")).toHaveLength(2);
    expect(sanitize("")).toBe("");
  });
});
