import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { act, cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { App } from "./App";
import * as ipc from "./ipc";
import { resetStore, store } from "./state";
import type { ThreadDetail } from "./bindings/ThreadDetail";
import type { HostEvent } from "./bindings/HostEvent";
import type { WindowInit } from "./bindings/WindowInit";
import { threadDetail } from "./testing/threads";
import { windowInit } from "./testing/windowInit";
import { harnessReport, missingReport } from "./testing/harnessReport";

let hostEvent: ((e: HostEvent) => void) | null = null;
let windowAssign: (() => void) | null = null;

vi.mock("./ipc", async () => {
  // The real error class (errors.ts tests `instanceof` it); every call is a mock.
  const { IpcError } = await vi.importActual<typeof import("./ipc")>("./ipc");
  const unlisten = () => Promise.resolve(() => {});
  return {
    IpcError,
    inApp: () => true,
    appInfo: vi.fn(),
    threads: vi.fn(),
    show: vi.fn(),
    windowInit: vi.fn(),
    getSettings: vi.fn(),
    doctor: vi.fn(),
    setWindowTabs: vi.fn(() => Promise.resolve()),
    setWindowTitle: vi.fn(() => Promise.resolve()),
    startTurn: vi.fn(() => Promise.resolve()),
    fork: vi.fn(),
    files: vi.fn(() =>
      Promise.resolve({
        folder_kind: "folder",
        in_git: true, checkpoints_note: null,
        folder_exists: true,
        branch: null,
        base_commit: null,
        checkpoints: [],
        preparing: null,
      }),
    ),
    openWindow: vi.fn(() => Promise.resolve("w-1")),
    onHostEvent: vi.fn((h: (e: HostEvent) => void) => {
      hostEvent = h;
      return Promise.resolve(() => {});
    }),
    onWindowAssign: vi.fn((h: () => void) => {
      windowAssign = h;
      return Promise.resolve(() => {});
    }),
    onHostLagged: unlisten,
    onForkPreview: unlisten,
    onActivateThread: unlisten,
    onSettingsChanged: unlisten,
    onMenu: unlisten,
    onLayoutChanged: unlisten,
    onUpdateProgress: unlisten,
    updateCheck: vi.fn(() => Promise.resolve(null)),
  };
});

const m = vi.mocked(ipc);

function detail(): ThreadDetail {
  return threadDetail("t1", 2, { title: "Refactor", native: { session_id: "s", path: "/s.jsonl" } });
}

beforeEach(() => {
  resetStore();
  hostEvent = null;
  m.appInfo.mockResolvedValue({ version: "1.2.3", data_dir: "/tmp/forkhost-data" });
  m.getSettings.mockResolvedValue({
    fork_opens_in: "window",
    theme: "system",
    harness_paths: { claude: null, codex: null, pi: null, opencode: null },
    check_for_updates: true,
    skipped_update: null,
    default_modes: { claude: null, codex_policy: null, codex_sandbox: null },
    fork_files: "worktree" as const,
    prune_checkpoints_days: 30,
    max_agents: 0,
    cost_warning_cents: 0,
  });
  m.doctor.mockResolvedValue([harnessReport("claude"), missingReport("codex"), missingReport("pi")]);
  m.threads.mockResolvedValue([]);
  m.windowInit.mockResolvedValue(windowInit());
});

afterEach(cleanup);

function shellRoot(container: HTMLElement): HTMLElement {
  const root = container.querySelector<HTMLElement>(".app");
  if (!root) throw new Error("no .app root");
  return root;
}

describe("App shell", () => {
  it("renders the sidebar, New thread, the empty states and the version", async () => {
    const { container } = render(<App />);
    expect(screen.getByText("Forkhost")).toBeTruthy();
    const newThread = screen.getByRole("button", { name: "New thread" });
    expect(newThread.getAttribute("data-action")).toBe("new-thread");
    await waitFor(() => expect(shellRoot(container).dataset.appReady).toBe("true"));
    expect(screen.getByText("No threads yet")).toBeTruthy();
    expect(screen.getByRole("heading", { name: "No thread open" })).toBeTruthy();
    expect(screen.getByRole("tablist", { name: "Open threads" }).children.length).toBe(0);
    const version = container.querySelector("[data-app-version]");
    expect(version?.textContent).toBe("Forkhost v1.2.3");
    expect(version?.getAttribute("title")).toContain("/tmp/forkhost-data");
  });

  it("is the first-run view when no agent can start a thread", async () => {
    m.doctor.mockResolvedValue([
      missingReport("claude"),
      missingReport("codex"),
      harnessReport("pi", { sign_in: "signed_out" }),
      missingReport("opencode"),
    ]);
    const { container } = render(<App />);
    await waitFor(() => expect(screen.getByRole("heading", { name: "Welcome to Forkhost" })).toBeTruthy());
    const empty = container.querySelector<HTMLElement>('[data-empty="workspace"]')!;
    expect(empty.dataset.firstRun).toBe("true");
    // The three native agents and OpenCode, an ACP agent.
    expect(empty.querySelectorAll(".setup-card")).toHaveLength(4);
    expect(empty.textContent).toContain("npm install -g @openai/codex");
  });

  it("is not ready before the window's state settles", () => {
    m.appInfo.mockReturnValue(new Promise(() => {}));
    const { container } = render(<App />);
    expect(shellRoot(container).dataset.appReady).toBe("false");
    expect(screen.getByText("Loading…")).toBeTruthy();
  });

  it("still becomes ready, without a version, when app_info fails", async () => {
    m.appInfo.mockRejectedValue(new Error("no backend"));
    const { container } = render(<App />);
    await waitFor(() => expect(shellRoot(container).dataset.appReady).toBe("true"));
    expect(screen.getByText("Version unavailable")).toBeTruthy();
  });
});

describe("a window with a thread open", () => {
  beforeEach(() => {
    const d = detail();
    m.threads.mockResolvedValue([{ ...d, turns: undefined } as unknown as ThreadDetail]);
    m.show.mockResolvedValue(d);
    m.windowInit.mockResolvedValue({
      label: "w-1",
      main: false,
      tabs: [{ id: "tab-1", thread_id: "t1", kind: "conversation" }],
      active_tab: "tab-1",
      prefill: { thread_id: "t1", text: "edit me" },
      focus_composer: true,
      seed: null,
      spare: false,
    });
  });

  it("shows the tab, the messages with fork actions, and the prefilled composer", async () => {
    const { container } = render(<App />);
    await waitFor(() => expect(container.querySelector('[role="tab"][data-thread-id="t1"]')).toBeTruthy());
    const composer = await waitFor(() => {
      const el = container.querySelector<HTMLTextAreaElement>('textarea[data-role="composer"]');
      if (!el) throw new Error("no composer");
      return el;
    });
    expect(composer.value).toBe("edit me");
    // A fork window shows no sidebar until asked.
    expect(container.querySelector(".sidebar")).toBeNull();
    expect(container.querySelector('[data-action="send"]')).toBeTruthy();
  });

  it("sends with Enter, streams the reply live, and re-reads the thread when the turn ends", async () => {
    const { container } = render(<App />);
    const composer = await waitFor(() => {
      const el = container.querySelector<HTMLTextAreaElement>('textarea[data-role="composer"]');
      if (!el) throw new Error("no composer");
      return el;
    });
    fireEvent.change(composer, { target: { value: "third" } });
    fireEvent.keyDown(composer, { key: "Enter", shiftKey: true });
    expect(m.startTurn).not.toHaveBeenCalled();
    fireEvent.keyDown(composer, { key: "Enter" });
    expect(m.startTurn).toHaveBeenCalledWith("t1", "third");
    await act(async () => {
      hostEvent?.({ type: "turn_started", thread_id: "t1" });
      hostEvent?.({ type: "text_delta", thread_id: "t1", text: "live text" });
    });
    await waitFor(() => expect(store.get().slots.t1?.live?.items).toEqual([{ kind: "text", text: "live text" }]));
    expect(container.querySelector('[data-action="stop"]')).toBeTruthy();
    await act(async () => {
      hostEvent?.({ type: "turn_ended", thread_id: "t1", outcome: "completed", message: null });
    });
    await waitFor(() => expect(m.show.mock.calls.length).toBeGreaterThanOrEqual(2));
  });
});

describe("a spare window", () => {
  it("waits hidden, then shows the fork it is given at once, without reading it again", async () => {
    const d = detail();
    m.windowInit.mockResolvedValueOnce({
      label: "w-spare",
      main: false,
      tabs: [],
      active_tab: null,
      prefill: null,
      focus_composer: false,
      seed: null,
      spare: true,
    });
    const { container } = render(<App />);
    await waitFor(() => expect(shellRoot(container).dataset.appReady).toBe("true"));
    expect(shellRoot(container).dataset.spare).toBe("true");
    const init: WindowInit = {
      label: "w-spare",
      main: false,
      tabs: [{ id: "tab-9", thread_id: "t1", kind: "conversation" }],
      active_tab: "tab-9",
      prefill: null,
      focus_composer: true,
      seed: d,
      spare: false,
    };
    // Let timers of earlier tests (debounced re-reads) run out first.
    await new Promise((r) => setTimeout(r, 200));
    m.show.mockClear();
    // The event only wakes the window: it asks for what it holds (the seed comes in the reply).
    m.windowInit.mockResolvedValueOnce(init);
    await act(async () => windowAssign?.());
    // The list (virtualized; happy-dom lays nothing out) holds the seeded thread's four rows.
    await waitFor(() =>
      expect(container.querySelector('[data-conversation="t1"] .conv-scroll')?.getAttribute("data-rows")).toBe("4"),
    );
    expect(shellRoot(container).dataset.spare).toBeUndefined();
    expect(m.show).not.toHaveBeenCalled();
  });
});
