// @vitest-environment jsdom
import { afterEach, describe, expect, it } from "vitest";
import { act, cleanup, fireEvent, render } from "@testing-library/react";
import { store } from "../state";
import { showMenu } from "./menu";
import { ContextMenu } from "./Overlays";

afterEach(() => {
  cleanup();
  store.set({ menu: null });
});

describe("the context menu closes", () => {
  it("when the user scrolls or clicks elsewhere, not when the page scrolls itself", () => {
    const list = document.createElement("div");
    document.body.append(list);
    render(<ContextMenu />);
    act(() => showMenu({ x: 10, y: 10, items: [{ label: "Fork", action: () => {} }] }));
    // A reply streaming in or a header laying out again scrolls the list: the menu stays.
    act(() => {
      list.dispatchEvent(new Event("scroll"));
      window.dispatchEvent(new Event("scroll"));
    });
    expect(store.get().menu).not.toBeNull();
    // A wheel inside the menu is the user reading its items: it stays.
    fireEvent.wheel(document.querySelector('[role="menu"]')!);
    expect(store.get().menu).not.toBeNull();
    // The wheel over the list: the user scrolls away from the menu's row.
    fireEvent.wheel(list);
    expect(store.get().menu).toBeNull();

    act(() => showMenu({ x: 10, y: 10, items: [{ label: "Fork", action: () => {} }] }));
    fireEvent.mouseDown(list);
    expect(store.get().menu).toBeNull();
    list.remove();
  });
});
