// @vitest-environment jsdom
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { act, cleanup, render, screen } from "@testing-library/react";
import * as ipc from "../ipc";
import { perf } from "../perf";
import { store } from "../state";
import { freshWindow } from "../testing/freshWindow";
import { threadDetail } from "../testing/threads";
import { Workspace } from "../Workspace";
import { ForkPreview, TabForkPreview } from "./ForkPreview";
import { endPreviewWhenPainted, loadPreview, previewStore, showTabPreview, tabPreviewStore } from "./preview";

vi.mock("../ipc", () => import("../testing/ipcMock"));
// jsdom has no ResizeObserver; the fork's own conversation (a virtual list) asks for one.
class NoResize {
  observe() {}
  unobserve() {}
  disconnect() {}
}
vi.stubGlobal("ResizeObserver", NoResize);
const m = vi.mocked(ipc);

beforeEach(() => {
  freshWindow();
  previewStore.set({ detail: null });
  tabPreviewStore.set({ detail: null, opened: false });
  store.set({ spare: true });
});
afterEach(cleanup);

describe("the fork preview", () => {
  it("shows the inherited history read-only in a spare window shown for a fork", async () => {
    m.forkPreview.mockResolvedValue({ detail: threadDetail("src", 3) });
    await loadPreview();
    expect(previewStore.get().detail?.turns).toHaveLength(3);
    expect(perf().preview?.messages).toBe(6);
    const { container } = render(<ForkPreview />);
    const root = container.querySelector("[data-fork-preview]");
    expect(root).not.toBeNull();
    expect(Number(root?.querySelector("[data-rows]")?.getAttribute("data-rows"))).toBeGreaterThan(0);
    expect(screen.getByPlaceholderText("Forking…")).toHaveProperty("disabled", true);
    // No Fork button is live in it.
    expect(container.querySelectorAll("[data-action=fork]").length).toBeGreaterThan(0);
    for (const button of container.querySelectorAll<HTMLButtonElement>("[data-action=fork]")) {
      expect(button.disabled || button.getAttribute("aria-disabled") === "true").toBe(true);
    }
  });

  it("is dropped when the fork failed (the app has none any more)", async () => {
    previewStore.set({ detail: threadDetail("src", 1) });
    m.forkPreview.mockResolvedValue({ detail: null });
    await loadPreview();
    expect(previewStore.get().detail).toBeNull();
    const { container } = render(<ForkPreview />);
    expect(container.querySelector("[data-fork-preview]")).toBeNull();
  });

  it("is ignored once the fork's own detail arrived", async () => {
    store.set({ spare: false });
    m.forkPreview.mockResolvedValue({ detail: threadDetail("src", 1) });
    await loadPreview();
    expect(previewStore.get().detail).toBeNull();
  });

  it("gives way once the fork's own list has painted", async () => {
    vi.useFakeTimers({ toFake: ["requestAnimationFrame"] });
    try {
      previewStore.set({ detail: threadDetail("src", 1) });
      perf().pending.fork = { readAt: 0, open: {} as never };
      endPreviewWhenPainted("fork");
      act(() => vi.advanceTimersToNextFrame());
      expect(previewStore.get().detail).not.toBeNull();
      delete perf().pending.fork;
      act(() => vi.advanceTimersToNextFrame());
      expect(previewStore.get().detail).toBeNull();
    } finally {
      vi.useRealTimers();
    }
  });

  it("shows a tab fork's inherited history in the tab area, read-only, and nothing over the window", () => {
    showTabPreview(threadDetail("src", 3), { kind: "after", turn: 2 });
    const { container } = render(
      <>
        <ForkPreview />
        <TabForkPreview />
      </>,
    );
    const panels = container.querySelectorAll("[data-fork-preview]");
    expect(Array.from(panels).map((p) => p.getAttribute("data-fork-preview"))).toEqual(["tab"]);
    expect(panels[0]?.getAttribute("role")).toBe("tabpanel");
    expect(container.querySelectorAll("article[data-turn]").length).toBe(4);
    expect(screen.getByPlaceholderText("Forking…")).toHaveProperty("disabled", true);
  });

  it("takes the active tab's place while forking, with a Forking… place in the tab bar, then lies over the fork's tab", () => {
    store.set({
      spare: false,
      threads: [threadDetail("src", 0), threadDetail("fork", 0)],
      tabs: [{ id: "x1", thread_id: "src", kind: "conversation" }],
      activeTab: "x1",
    });
    showTabPreview(threadDetail("src", 3), { kind: "after", turn: 1 });
    const { container } = render(<Workspace />);
    expect(container.querySelector("[data-fork-preview-tab]")).not.toBeNull();
    expect(container.querySelector('[role="tab"][aria-selected="true"]')).toBeNull();
    expect(container.querySelector('[data-fork-preview="tab"]')?.getAttribute("role")).toBe("tabpanel");
    expect(container.querySelector("[data-conversation]")).toBeNull();

    m.show.mockImplementation((id: string) => Promise.resolve(threadDetail(id, 1)));
    act(() => {
      store.set({ tabs: [...store.get().tabs, { id: "x2", thread_id: "fork", kind: "conversation" }], activeTab: "x2" });
      tabPreviewStore.set({ opened: true });
    });
    expect(container.querySelector("[data-fork-preview-tab]")).toBeNull();
    expect(container.querySelector('[role="tab"][aria-selected="true"]')?.getAttribute("data-thread-id")).toBe("fork");
    const over = container.querySelector('[data-fork-preview="tab"]');
    expect(over?.className).toContain("fork-preview--over");
    expect(over?.parentElement?.getAttribute("role")).toBe("tabpanel");
  });
});
