import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { applyTheme } from "./theme";

let link: HTMLLinkElement;

beforeEach(() => {
  link = document.createElement("link");
  link.id = "dark-palette";
  link.rel = "stylesheet";
  link.media = "(prefers-color-scheme: dark)";
  document.head.append(link);
});

afterEach(() => {
  link.remove();
  delete document.documentElement.dataset.theme;
});

describe("the theme", () => {
  it("a pick applies the dark palette always or never, and names itself on html", () => {
    applyTheme("dark");
    expect(link.media).toBe("all");
    expect(document.documentElement.dataset.theme).toBe("dark");
    applyTheme("light");
    expect(link.media).toBe("not all");
    expect(document.documentElement.dataset.theme).toBe("light");
  });

  it("system gives the choice back to the OS", () => {
    applyTheme("dark");
    applyTheme("system");
    expect(link.media).toBe("(prefers-color-scheme: dark)");
    expect(document.documentElement.dataset.theme).toBeUndefined();
  });

  it("works without the palette's link (a page other than index.html)", () => {
    link.remove();
    expect(() => applyTheme("dark")).not.toThrow();
  });
});
