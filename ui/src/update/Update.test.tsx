import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { act, cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import * as ipc from "../ipc";
import type { UpdateInfo, UpdateProgress } from "../ipc";
import { resetStore, store } from "../state";
import { UpdateBadge, UpdateDialog } from "./Update";
import { checkForUpdates, onUpdateProgress, scheduleStartupCheck, STARTUP_CHECK_DELAY_MS } from "./updater";

vi.mock("../ipc", async () => {
  // The real error class (errors.ts tests `instanceof` it); every call is a mock.
  const { IpcError } = await vi.importActual<typeof import("../ipc")>("../ipc");
  return {
    IpcError,
    inApp: () => true,
    updateCheck: vi.fn(),
    updateInstall: vi.fn(),
    saveSettings: vi.fn(() => Promise.resolve()),
    openExternal: vi.fn(),
    doctor: vi.fn(() => Promise.resolve([])),
  };
});

const m = vi.mocked(ipc);

const info: UpdateInfo = {
  version: "0.2.0",
  current_version: "0.1.0",
  notes: "This release is faster.\n\n### What's new\n\n- Faster forks\n\n<img src=x onerror=\"window.__pwned=1\"><script>window.__pwned=2</script>",
  date: "2026-11-20T10:00:00Z",
};

function Dialog() {
  return <UpdateDialog />;
}

beforeEach(() => {
  resetStore();
  m.updateCheck.mockReset();
  m.updateInstall.mockReset();
  m.saveSettings.mockClear();
  (window as unknown as { __pwned?: number }).__pwned = undefined;
});

afterEach(() => {
  cleanup();
  vi.useRealTimers();
});

describe("update check", () => {
  it("waits after start, then offers the new version with its notes, sanitized", async () => {
    vi.useFakeTimers();
    m.updateCheck.mockResolvedValue(info);
    const cancel = scheduleStartupCheck();
    expect(m.updateCheck).not.toHaveBeenCalled();
    await act(async () => {
      await vi.advanceTimersByTimeAsync(STARTUP_CHECK_DELAY_MS);
    });
    expect(m.updateCheck).toHaveBeenCalledWith(false);
    cancel();
    vi.useRealTimers();

    expect(store.get().dialog).toEqual({ kind: "update" });
    render(<Dialog />);
    expect(screen.getByText("0.2.0")).toBeTruthy();
    expect(screen.getByText(/you have 0\.1\.0/)).toBeTruthy();
    const notes = document.querySelector("[data-update-notes]")!;
    expect(notes.querySelector("h1, h2, h3, h4")?.textContent, notes.innerHTML).toBe("What's new");
    expect(notes.textContent).toContain("Faster forks");
    // Raw HTML in notes is text, never elements.
    expect(notes.querySelector("img, script, [onerror]")).toBeNull();
    expect(notes.textContent).toContain("<script>");
    expect((window as unknown as { __pwned?: number }).__pwned).toBeUndefined();
  });

  it("does not check at start when the setting is off, nor in a fork window", async () => {
    vi.useFakeTimers();
    store.set({ settings: { ...store.get().settings, check_for_updates: false } });
    scheduleStartupCheck();
    store.set({ settings: { ...store.get().settings, check_for_updates: true }, main: false });
    scheduleStartupCheck();
    await vi.advanceTimersByTimeAsync(STARTUP_CHECK_DELAY_MS * 2);
    expect(m.updateCheck).not.toHaveBeenCalled();
  });

  it("keeps quiet at start when another dialog is open, but offers it in the sidebar", async () => {
    m.updateCheck.mockResolvedValue(info);
    store.set({ dialog: { kind: "settings" } });
    await checkForUpdates(false);
    expect(store.get().dialog).toEqual({ kind: "settings" });
    render(<UpdateBadge onOpen={() => store.set({ dialog: { kind: "update" } })} />);
    fireEvent.click(screen.getByText("Update to 0.2.0"));
    expect(store.get().dialog).toEqual({ kind: "update" });
  });

  it("a manual check says when there is nothing newer, and says why it failed", async () => {
    store.set({ info: { status: "ready", info: { version: "0.1.0", data_dir: "/d" } } });
    m.updateCheck.mockResolvedValueOnce(null);
    render(<Dialog />);
    await act(() => checkForUpdates(true));
    expect(m.updateCheck).toHaveBeenCalledWith(true);
    expect(screen.getByText("Forkhost 0.1.0 is the newest version.")).toBeTruthy();

    m.updateCheck.mockRejectedValueOnce(
      new ipc.IpcError("update", "Could not reach the update server while checking: timed out"),
    );
    await act(() => checkForUpdates(true));
    expect(screen.getByRole("alert").textContent).toContain("Could not check for updates");
    expect(screen.getByRole("alert").textContent).toContain("Could not reach the update server");
  });
});

describe("update install", () => {
  it("shows download progress, then restarts", async () => {
    m.updateCheck.mockResolvedValue(info);
    let finish: () => void = () => {};
    m.updateInstall.mockImplementation(() => new Promise<void>((resolve) => (finish = resolve)));
    await checkForUpdates(true);
    render(<Dialog />);
    fireEvent.click(screen.getByText("Install and restart"));
    expect(m.updateInstall).toHaveBeenCalledWith("0.2.0");

    const progress = (p: UpdateProgress) => act(() => onUpdateProgress(p));
    progress({ stage: "downloading", downloaded: 4_000_000, total: 16_000_000 });
    const bar = document.querySelector<HTMLProgressElement>("progress")!;
    expect(bar.value).toBe(25);
    expect(screen.getByText("4.0 of 16.0 MB")).toBeTruthy();
    progress({ stage: "downloading", downloaded: 16_000_000, total: 16_000_000 });
    expect(bar.value).toBe(100);
    progress({ stage: "installing" });
    expect(screen.getByText(/Installing Forkhost 0\.2\.0/)).toBeTruthy();
    await act(async () => finish());
    expect(screen.getByText(/Restarting into Forkhost 0\.2\.0/)).toBeTruthy();
  });

  it("a failed install says so and can be tried again", async () => {
    m.updateCheck.mockResolvedValue(info);
    m.updateInstall.mockRejectedValueOnce(
      new ipc.IpcError("update", "The downloaded update is not signed by Forkhost's key, so it was not installed."),
    );
    await checkForUpdates(true);
    render(<Dialog />);
    fireEvent.click(screen.getByText("Install and restart"));
    await waitFor(() => expect(screen.getByRole("alert").textContent).toContain("not signed"));
    m.updateInstall.mockResolvedValueOnce(undefined);
    fireEvent.click(screen.getByText("Try again"));
    expect(m.updateInstall).toHaveBeenCalledTimes(2);
    expect(m.updateInstall).toHaveBeenLastCalledWith("0.2.0");
  });

  it("skipping a version saves it in the settings", async () => {
    m.updateCheck.mockResolvedValue(info);
    await checkForUpdates(true);
    render(<Dialog />);
    fireEvent.click(screen.getByText("Skip this version"));
    await waitFor(() => expect(store.get().dialog).toBeNull());
    expect(m.saveSettings).toHaveBeenCalledWith(expect.objectContaining({ skipped_update: "0.2.0" }));
    expect(store.get().update.status).toBe("idle");
  });
});
