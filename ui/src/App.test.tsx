import { afterEach, describe, expect, it, vi } from "vitest";
import { cleanup, render, screen, waitFor } from "@testing-library/react";
import { App } from "./App";
import * as ipc from "./ipc";

vi.mock("./ipc", () => ({
  appInfo: vi.fn(),
  inApp: () => true,
}));

const appInfo = vi.mocked(ipc.appInfo);

afterEach(cleanup);

function shellRoot(container: HTMLElement): HTMLElement {
  const root = container.querySelector<HTMLElement>(".app");
  if (!root) throw new Error("no .app root");
  return root;
}

describe("App shell", () => {
  it("renders the sidebar, New thread, the empty states and the version", async () => {
    appInfo.mockResolvedValue({ version: "1.2.3", data_dir: "/tmp/forkhost-data" });
    const { container } = render(<App />);

    // The brand and the New thread action, with its stable automation hook.
    expect(screen.getByText("Forkhost")).toBeTruthy();
    const newThread = screen.getByRole("button", { name: "New thread" });
    expect(newThread.getAttribute("data-action")).toBe("new-thread");

    // Empty states: no threads in the sidebar, no thread open in the main pane, no tabs.
    expect(screen.getByRole("heading", { name: "Threads" })).toBeTruthy();
    expect(screen.getByText("No threads yet")).toBeTruthy();
    expect(screen.getByRole("heading", { name: "No thread open" })).toBeTruthy();
    const tablist = screen.getByRole("tablist", { name: "Open threads" });
    expect(tablist.children.length).toBe(0);

    // Ready once app_info settled; the version sits in the sidebar footer.
    await waitFor(() => expect(shellRoot(container).dataset.appReady).toBe("true"));
    const version = container.querySelector("[data-app-version]");
    expect(version?.textContent).toBe("Forkhost v1.2.3");
    expect(version?.getAttribute("title")).toContain("/tmp/forkhost-data");
    expect(appInfo).toHaveBeenCalledTimes(1);
  });

  it("is not ready before app_info settles", () => {
    appInfo.mockReturnValue(new Promise(() => {}));
    const { container } = render(<App />);
    expect(shellRoot(container).dataset.appReady).toBe("false");
    expect(screen.getByText("Loading…")).toBeTruthy();
  });

  it("still becomes ready, without a version, when app_info fails", async () => {
    appInfo.mockRejectedValue(new Error("no backend"));
    const { container } = render(<App />);
    await waitFor(() => expect(shellRoot(container).dataset.appReady).toBe("true"));
    expect(screen.getByText("Version unavailable")).toBeTruthy();
    expect(container.querySelector("[data-app-version]")).toBeNull();
  });
});
