import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { WindowInit } from "./bindings/WindowInit";
import type { TabView } from "./bindings/TabView";
import { applyInit, boot, titleOf } from "./boot";
import * as ipc from "./ipc";
import { perf } from "./perf";
import { store } from "./state";
import { freshWindow } from "./testing/freshWindow";
import { threadDetail } from "./testing/threads";
import { windowInit } from "./testing/windowInit";
import { stripTurns } from "./threads/cache";

vi.mock("./ipc", () => import("./testing/ipcMock"));
const m = vi.mocked(ipc);

function init(over: Partial<WindowInit> = {}): WindowInit {
  return windowInit({ label: "w-1", main: false, ...over });
}

const conversation = (id: string, thread: string): TabView => ({ id, thread_id: thread, kind: "conversation" });

let listeners: Record<string, (...args: never[]) => void>;

beforeEach(() => {
  freshWindow();
  listeners = {};
  const on = (name: string) => (h: (...args: never[]) => void) => {
    listeners[name] = h;
    return Promise.resolve(() => {});
  };
  m.onWindowAssign.mockImplementation(on("assign"));
  m.onForkPreview.mockImplementation(on("preview"));
  m.onHostEvent.mockImplementation(on("host"));
  m.onHostLagged.mockImplementation(on("lagged"));
  m.onSettingsChanged.mockImplementation(on("settings"));
  m.onActivateThread.mockImplementation(on("activate"));
  m.appInfo.mockResolvedValue({ version: "1.0.0", data_dir: "/data" });
  m.getSettings.mockResolvedValue(store.get().settings);
  m.threads.mockResolvedValue([]);
  m.doctor.mockResolvedValue([]);
  m.show.mockImplementation((id: string) => Promise.resolve(threadDetail(id)));
  m.windowInit.mockResolvedValue(init());
  m.setWindowTabs.mockResolvedValue(undefined);
  m.setWindowTitle.mockResolvedValue(undefined);
});

afterEach(() => {
  vi.useRealTimers();
});

describe("the window title", () => {
  it("names the active tab's thread", () => {
    expect(titleOf(store.get())).toBe("Forkhost");
    store.set({ threads: [stripTurns(threadDetail("a"))], tabs: [conversation("x1", "a")], activeTab: "x1" });
    expect(titleOf(store.get())).toBe("Thread a — Forkhost");
    store.set({ tabs: [{ id: "x1", thread_id: "a", kind: "terminal" }] });
    expect(titleOf(store.get())).toBe("Thread a (terminal) — Forkhost");
  });
});

describe("a thread waiting on the user", () => {
  const ask = (id: string, kind: "command" | "question" = "command") => ({
    id,
    turn: 1,
    tool_call_id: null,
    subject:
      kind === "command"
        ? { kind: "command" as const, command: "rm -rf /tmp/x", cwd: null }
        : ({ kind: "question", prompt: "Which?", options: [] } as never),
    reason: null,
    can_approve_for_session: true,
    session_rules: ["run exactly this again"],
  });

  it("marks the window title while one of its threads waits, and only then", () => {
    store.set({
      threads: [stripTurns(threadDetail("a")), stripTurns(threadDetail("b"))],
      tabs: [conversation("x1", "a"), conversation("x2", "b")],
      activeTab: "x1",
    });
    expect(titleOf(store.get())).toBe("Thread a — Forkhost");
    store.set({ approvals: { b: [ask("r1")] } });
    expect(titleOf(store.get())).toBe("● Waiting for approval — Thread b — Forkhost");
    // The command itself never reaches the title.
    expect(titleOf(store.get())).not.toContain("rm -rf");
    // The active tab's thread first.
    store.set({ approvals: { b: [ask("r1")], a: [ask("r2")] } });
    expect(titleOf(store.get())).toBe("● Waiting for approval — Thread a — Forkhost");
    store.set({ approvals: { a: [ask("r3", "question")] } });
    expect(titleOf(store.get())).toBe("● Question waiting — Thread a — Forkhost");
    // Another window's thread does not mark this one.
    store.set({ approvals: { elsewhere: [ask("r4")] } });
    expect(titleOf(store.get())).toBe("Thread a — Forkhost");
  });

  it("shows the thread the app says the user came back for", async () => {
    m.windowInit.mockResolvedValue(
      init({ tabs: [conversation("x1", "a"), conversation("x2", "b")], active_tab: "x1" }),
    );
    const stop = await boot();
    expect(store.get().activeTab).toBe("x1");
    listeners.activate?.("b" as never);
    expect(store.get().activeTab).toBe("x2");
    stop();
  });
});

describe("what the app says a window holds", () => {
  it("shows a fork's seed at once, with its prompt back in the composer", () => {
    const seed = threadDetail("fork", 2);
    applyInit(
      init({
        tabs: [conversation("x1", "fork")],
        seed,
        prefill: { thread_id: "fork", text: "again" },
        focus_composer: true,
      }),
    );
    const state = store.get();
    expect(state).toMatchObject({ label: "w-1", main: false, sidebarOpen: false, activeTab: "x1" });
    expect(state.slots.fork?.detail).toBe(seed);
    expect(state.threads).toEqual([stripTurns(seed)]);
    expect(state.drafts.fork).toBe("again");
    expect(state.focusComposer).toBe(1);
    expect(perf().opens).toMatchObject([{ threadId: "fork", readMs: 0, messages: 4 }]);
    expect(m.show).not.toHaveBeenCalled();
  });

  it("reads the tabs' threads, the active one first, each once", () => {
    applyInit(init({ tabs: [conversation("x1", "a"), conversation("x2", "b"), conversation("x3", "b")], active_tab: "x2" }));
    expect(m.show.mock.calls.map(([id]) => id)).toEqual(["b", "a"]);
  });
});

describe("boot", () => {
  it("listens first, then reads the window, the threads and settings, and is ready", async () => {
    m.windowInit.mockResolvedValue(init({ tabs: [conversation("x1", "a")], active_tab: "x1" }));
    const stop = await boot();
    expect(Object.keys(listeners).sort()).toEqual(["activate", "assign", "host", "lagged", "preview", "settings"]);
    const state = store.get();
    expect(state.ready).toBe(true);
    expect(state.info).toEqual({ status: "ready", info: { version: "1.0.0", data_dir: "/data" } });
    expect(state.threadsLoaded).toBe(true);
    expect(m.doctor).toHaveBeenCalled();
    // The tabs it was given are not reported back.
    expect(m.setWindowTabs).not.toHaveBeenCalled();
    stop();
  });

  it("survives an app that does not answer (outside the app)", async () => {
    m.appInfo.mockRejectedValue(new Error("no app"));
    m.getSettings.mockRejectedValue(new Error("no app"));
    m.windowInit.mockRejectedValue(new Error("no app"));
    m.onHostEvent.mockRejectedValue(new Error("no events"));
    const stop = await boot();
    expect(store.get().ready).toBe(true);
    expect(store.get().info).toEqual({ status: "error", message: "no app" });
    stop();
  });

  it("keeps the layout and the title in step with the tabs", async () => {
    const stop = await boot();
    vi.useFakeTimers();
    store.set({ threads: [stripTurns(threadDetail("a"))], tabs: [conversation("x1", "a")], activeTab: "x1" });
    expect(m.setWindowTitle).toHaveBeenLastCalledWith("Thread a — Forkhost");
    vi.advanceTimersByTime(40);
    expect(m.setWindowTabs).toHaveBeenCalledWith(store.get().tabs, "x1");
    stop();
    store.set({ tabs: [], activeTab: null });
    vi.advanceTimersByTime(40);
    expect(m.setWindowTabs).toHaveBeenCalledTimes(1);
  });

  it("applies settings changed in another window, and re-reads all after missed events", async () => {
    const stop = await boot();
    const settings = { ...store.get().settings, theme: "dark" as const };
    (listeners.settings as (s: typeof settings) => void)(settings);
    expect(store.get().settings).toBe(settings);
    m.threads.mockClear();
    (listeners.lagged as () => void)();
    expect(m.threads).toHaveBeenCalledTimes(1);
    stop();
  });

  it("a spare window given a fork shows it, and re-reads the threads after it painted", async () => {
    m.windowInit.mockResolvedValue(init({ spare: true }));
    const stop = await boot();
    vi.useFakeTimers();
    const seed = threadDetail("fork", 1);
    m.windowInit.mockResolvedValue(init({ tabs: [conversation("x1", "fork")], seed }));
    m.threads.mockClear();
    (listeners.assign as () => void)();
    await vi.waitFor(() => expect(store.get().slots.fork?.detail).toBe(seed));
    expect(perf().assignedAt).toBeDefined();
    expect(m.threads).not.toHaveBeenCalled();
    vi.advanceTimersByTime(300);
    expect(m.threads).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(40);
    expect(m.setWindowTabs).not.toHaveBeenCalled();
    stop();
  });
});
