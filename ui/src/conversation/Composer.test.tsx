// @vitest-environment jsdom
import { afterEach, describe, expect, it, vi } from "vitest";
import { cleanup, render } from "@testing-library/react";
import { store } from "../state";
import { startLive } from "../threads/live";
import { Composer } from "./Composer";

vi.mock("../ipc", () => import("../testing/ipcMock"));

// jsdom has no layout: the composer's height follows its text through one.
class NoResize {
  observe() {}
  disconnect() {}
}
vi.stubGlobal("ResizeObserver", NoResize);

afterEach(() => {
  cleanup();
  store.set({ preparing: {} });
});

const props = { threadId: "fork", harness: "pi", threadState: "ready", terminalOpen: false, focusSignal: 0, autoFocus: false };

describe("the composer of a fork whose files are still being written", () => {
  it("says the sent prompt waits for the files, not for the harness", () => {
    store.set({ preparing: { fork: { done: 10, total: 500 } } });
    const view = render(<Composer {...props} live={startLive("hello", 0)} />);
    const state = view.container.querySelector("[data-runtime-state]");
    expect(state?.textContent).toBe("Waiting for the fork's files · sends when they are there");
    expect(view.container.querySelector('[data-action="stop"]')).not.toBeNull();
  });

  it("says the harness is starting once they are there", () => {
    const view = render(<Composer {...props} live={startLive("hello", 0)} />);
    expect(view.container.querySelector("[data-runtime-state]")?.textContent).toBe("Starting Pi…");
  });
});
