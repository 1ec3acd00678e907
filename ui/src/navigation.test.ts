import { afterEach, describe, expect, it, vi } from "vitest";

vi.mock("./ipc", () => ({ openExternal: vi.fn(() => Promise.resolve()) }));

import * as ipc from "./ipc";
import { blocksDrop, installDropGuard, openTerminalLink, terminalLinkHandler } from "./navigation";

function dragEvent(type: string, types: string[]): Event {
  const e = new Event(type, { bubbles: true, cancelable: true });
  Object.defineProperty(e, "dataTransfer", { value: { types } });
  return e;
}

describe("drop guard", () => {
  let undo: (() => void) | null = null;
  afterEach(() => {
    undo?.();
    undo = null;
    document.body.innerHTML = "";
  });

  it("cancels links and files dropped anywhere on the window", () => {
    undo = installDropGuard(window);
    const div = document.createElement("div");
    document.body.append(div);
    for (const type of ["dragover", "drop"]) {
      const link = dragEvent(type, ["text/uri-list", "text/plain"]);
      div.dispatchEvent(link);
      expect(link.defaultPrevented).toBe(true);
      const file = dragEvent(type, ["Files"]);
      document.body.dispatchEvent(file);
      expect(file.defaultPrevented).toBe(true);
    }
  });

  it("lets text drop into a text field, but never a file", () => {
    undo = installDropGuard(window);
    const area = document.createElement("textarea");
    document.body.append(area);
    const text = dragEvent("drop", ["text/plain"]);
    area.dispatchEvent(text);
    expect(text.defaultPrevented).toBe(false);
    const file = dragEvent("drop", ["Files"]);
    area.dispatchEvent(file);
    expect(file.defaultPrevented).toBe(true);
    const input = document.createElement("input");
    input.type = "checkbox";
    expect(blocksDrop(["text/plain"], input)).toBe(true);
    expect(blocksDrop(["text/plain"], null)).toBe(true);
  });

  it("can be removed", () => {
    installDropGuard(window)();
    const e = dragEvent("drop", ["Files"]);
    document.body.dispatchEvent(e);
    expect(e.defaultPrevented).toBe(false);
  });
});

describe("terminal links", () => {
  it("open through the app's one door to the browser", () => {
    const click = new MouseEvent("click");
    openTerminalLink(click, "https://example.com/a");
    terminalLinkHandler.activate(click, "mailto:a@example.com", {
      start: { x: 1, y: 1 },
      end: { x: 2, y: 1 },
    });
    expect(vi.mocked(ipc.openExternal).mock.calls).toEqual([
      ["https://example.com/a"],
      ["mailto:a@example.com"],
    ]);
    expect(terminalLinkHandler.allowNonHttpProtocols).toBe(false);
  });
});
