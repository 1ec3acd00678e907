// @vitest-environment jsdom
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { act, cleanup, render, screen } from "@testing-library/react";
import * as ipc from "../ipc";
import { perf } from "../perf";
import { store } from "../state";
import { freshWindow } from "../testing/freshWindow";
import { threadDetail } from "../testing/threads";
import { ForkPreview } from "./ForkPreview";
import { endPreviewWhenPainted, loadPreview, previewStore } from "./preview";

vi.mock("../ipc", () => import("../testing/ipcMock"));
const m = vi.mocked(ipc);

beforeEach(() => {
  freshWindow();
  previewStore.set({ detail: null });
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
    expect(Number(root?.getAttribute("data-rows"))).toBeGreaterThan(0);
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
});
