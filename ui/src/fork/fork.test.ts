import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { ForkReply } from "../bindings/ForkReply";
import * as ipc from "../ipc";
import { perf } from "../perf";
import { store, updateSlot } from "../state";
import { freshWindow } from "../testing/freshWindow";
import { threadDetail } from "../testing/threads";
import { forkAt, forkLatest, forkSelected, forkWhere } from "./fork";
import { tabPreviewStore } from "./preview";

vi.mock("../ipc", () => import("../testing/ipcMock"));
const m = vi.mocked(ipc);

const timing = { check_ms: 1, native_ms: 20, warm: false, commit_ms: 1, read_back_ms: 1, total_ms: 30.4 };

function reply(over: Partial<ForkReply> = {}): ForkReply {
  return { window: null, thread: threadDetail("fork", 1), prefill: null, files_note: null, carry_note: null, files_pending: false, timing, ...over };
}

beforeEach(() => {
  freshWindow();
  tabPreviewStore.set({ detail: null, opened: false });
  vi.useFakeTimers();
  m.threads.mockResolvedValue([]);
  m.show.mockImplementation((id: string) => Promise.resolve(threadDetail(id)));
  store.set({
    settings: { ...store.get().settings, fork_opens_in: "tab" },
    tabs: [{ id: "x1", thread_id: "src", kind: "conversation" }],
    activeTab: "x1",
  });
  updateSlot("src", (s) => ({ ...s, detail: threadDetail("src", 3) }));
});

afterEach(() => {
  vi.runOnlyPendingTimers();
  vi.useRealTimers();
});

describe("where a fork opens", () => {
  it("follows the setting, or its opposite with Cmd/Ctrl", () => {
    expect(forkWhere(false)).toBe("tab");
    expect(forkWhere(true)).toBe("window");
    store.set({ settings: { ...store.get().settings, fork_opens_in: "window" } });
    expect(forkWhere(undefined)).toBe("window");
    expect(forkWhere(true)).toBe("tab");
  });
});

describe("forking in a tab", () => {
  it("forks before a prompt: the fork's tab opens with its detail and the prompt back in its composer", async () => {
    m.fork.mockResolvedValue(reply({ prefill: "prompt 2" }));
    await forkAt({ threadId: "src", turn: 2, role: "user", rowKey: "r" });
    expect(m.fork).toHaveBeenCalledWith("src", { kind: "before", turn: 2 }, false, null, null);
    const state = store.get();
    expect(state.tabs.map((t) => t.thread_id)).toEqual(["src", "fork"]);
    expect(state.slots.fork?.detail?.id).toBe("fork");
    expect(state.drafts.fork).toBe("prompt 2");
    expect(state.focusComposer).toBe(1);
    expect(state.threads.map((t) => t.id)).toEqual(["fork"]);
    expect(state.forking).toEqual({});
    expect(state.toasts).toMatchObject([
      { kind: "success", title: "Forked before turn 2", message: "Opened in a new tab · 30 ms" },
    ]);
    expect(perf().forks).toMatchObject([{ threadId: "src", forkId: "fork", window: null, opensIn: "tab", nativeMs: 20 }]);
    expect(perf().opens).toMatchObject([{ threadId: "fork", messages: 2 }]);
  });

  it("continues in another harness when asked, and says so", async () => {
    m.fork.mockResolvedValue(reply({ carry_note: "Continued from Claude Code: 1 turn, every text as it was." }));
    await forkAt({ threadId: "src", turn: 1, role: "assistant", rowKey: "r", into: "pi" });
    expect(m.fork).toHaveBeenCalledWith("src", { kind: "after", turn: 1 }, false, null, "pi");
    expect(store.get().toasts).toMatchObject([
      { kind: "success", title: "Continued in Pi after turn 1" },
      { kind: "info", title: "What came over", message: "Continued from Claude Code: 1 turn, every text as it was." },
    ]);
  });

  it("starts a fork in another harness in Settings' mode for that harness", async () => {
    store.set({
      settings: { ...store.get().settings, default_modes: { claude: null, codex_policy: "untrusted", codex_sandbox: null } },
    });
    m.fork.mockResolvedValue(reply({}));
    await forkAt({ threadId: "src", turn: 1, role: "assistant", rowKey: "r", into: "codex" });
    expect(m.setMode).toHaveBeenCalledWith("fork", "untrusted", null);
    m.setMode.mockClear();
    await forkAt({ threadId: "src", turn: 1, role: "assistant", rowKey: "r2", into: "pi" });
    expect(m.setMode).not.toHaveBeenCalled();
  });

  it("passes the files the user chose, and says the fork's files note", async () => {
    m.fork.mockResolvedValue(reply({ files_note: "no checkpoint at turn 1: the fork starts from the current files" }));
    await forkAt({ threadId: "src", turn: 1, role: "assistant", rowKey: "r", files: "worktree" });
    expect(m.fork).toHaveBeenCalledWith("src", { kind: "after", turn: 1 }, false, "worktree", null);
    expect(store.get().toasts).toMatchObject([
      { kind: "success" },
      { kind: "info", message: "no checkpoint at turn 1: the fork starts from the current files" },
    ]);
  });

  it("forks after a reply, and re-reads the source only after the fork has painted", async () => {
    m.fork.mockResolvedValue(reply());
    await forkAt({ threadId: "src", turn: 3, role: "assistant", rowKey: "r" });
    expect(m.fork).toHaveBeenCalledWith("src", { kind: "after", turn: 3 }, false, null, null);
    vi.advanceTimersByTime(1_000);
    expect(m.show).not.toHaveBeenCalledWith("src");
    vi.advanceTimersByTime(200 + 60);
    expect(m.show).toHaveBeenCalledWith("src");
  });

  it("shows the history the fork inherits at the click, in place of the active tab, until its own tab has painted", async () => {
    vi.useFakeTimers({ toFake: ["requestAnimationFrame", "setTimeout", "setInterval", "Date"] });
    updateSlot("src", (s) => ({ ...s, detail: threadDetail("src", 3, { harness: "pi" }) }));
    let answer: (r: ForkReply) => void = () => {};
    m.fork.mockReturnValue(new Promise<ForkReply>((resolve) => (answer = resolve)));
    const forking = forkAt({ threadId: "src", turn: 2, role: "assistant", rowKey: "r" });
    // Before the app answered: the source's turns 1–2, not 3.
    expect(tabPreviewStore.get().detail?.turns.map((t) => Number(t.number))).toEqual([1, 2]);
    expect(perf().preview?.messages).toBe(4);
    expect(store.get().tabs).toHaveLength(1);
    answer(reply());
    await forking;
    expect(store.get().tabs.map((t) => t.thread_id)).toEqual(["src", "fork"]);
    // Over the fork's own tab until its list painted (it is pending until then), then gone.
    expect(tabPreviewStore.get()).toMatchObject({ opened: true });
    expect(tabPreviewStore.get().detail).not.toBeNull();
    delete perf().pending.fork;
    vi.advanceTimersToNextFrame();
    expect(tabPreviewStore.get().detail).toBeNull();
  });

  it("keeps only the turns before a prompt forked before", async () => {
    updateSlot("src", (s) => ({ ...s, detail: threadDetail("src", 3, { harness: "codex" }) }));
    let answer: (r: ForkReply) => void = () => {};
    m.fork.mockReturnValue(new Promise<ForkReply>((resolve) => (answer = resolve)));
    const forking = forkAt({ threadId: "src", turn: 2, role: "user", rowKey: "r" });
    expect(tabPreviewStore.get().detail?.turns.map((t) => Number(t.number))).toEqual([1]);
    answer(reply());
    await forking;
  });

  it("shows no preview for Claude's own fork, which answers at once, but does for one into another harness", async () => {
    let answer: (r: ForkReply) => void = () => {};
    m.fork.mockReturnValue(new Promise<ForkReply>((resolve) => (answer = resolve)));
    const lazy = forkAt({ threadId: "src", turn: 2, role: "assistant", rowKey: "r" });
    expect(tabPreviewStore.get().detail).toBeNull();
    answer(reply());
    await lazy;
    m.fork.mockReturnValue(new Promise<ForkReply>((resolve) => (answer = resolve)));
    const crossing = forkAt({ threadId: "src", turn: 2, role: "assistant", rowKey: "r", into: "pi" });
    expect(tabPreviewStore.get().detail?.turns).toHaveLength(2);
    answer(reply());
    await crossing;
  });

  it("says it is forking only when the fork takes a while", async () => {
    let answer: (r: ForkReply) => void = () => {};
    m.fork.mockReturnValue(new Promise<ForkReply>((resolve) => (answer = resolve)));
    const quick = forkAt({ threadId: "src", turn: 1, role: "assistant", rowKey: "q" });
    vi.advanceTimersByTime(100);
    expect(store.get().forking).toEqual({});
    expect(store.get().toasts).toEqual([]);
    // A second click on the same row meanwhile is not a second fork.
    await forkAt({ threadId: "src", turn: 1, role: "assistant", rowKey: "q" });
    expect(m.fork).toHaveBeenCalledTimes(1);
    answer(reply());
    await quick;
    expect(store.get().toasts).toMatchObject([{ kind: "success" }]);

    m.fork.mockReturnValue(new Promise<ForkReply>((resolve) => (answer = resolve)));
    const slow = forkAt({ threadId: "src", turn: 1, role: "assistant", rowKey: "s" });
    vi.advanceTimersByTime(200);
    expect(store.get().forking).toEqual({ s: true });
    expect(store.get().toasts).toMatchObject([{ kind: "success" }, { kind: "progress", title: "Forking after turn 1…" }]);
    answer(reply());
    await slow;
    expect(store.get().forking).toEqual({});
    expect(store.get().toasts.map((t) => t.kind)).toEqual(["success", "success"]);
  });

  it("drops the inherited history at once when the fork failed", async () => {
    updateSlot("src", (s) => ({ ...s, detail: threadDetail("src", 3, { harness: "pi" }) }));
    m.fork.mockRejectedValue(new Error("busy"));
    await forkAt({ threadId: "src", turn: 2, role: "assistant", rowKey: "r" });
    expect(tabPreviewStore.get().detail).toBeNull();
    expect(store.get().tabs).toHaveLength(1);
  });

  it("runs once per row at a time", async () => {
    store.set({ forking: { r: true } });
    await forkAt({ threadId: "src", turn: 1, role: "user", rowKey: "r" });
    expect(m.fork).not.toHaveBeenCalled();
  });

  it("says why a fork failed, and frees the row", async () => {
    m.fork.mockRejectedValue(new Error("cut out of range"));
    await forkAt({ threadId: "src", turn: 9, role: "assistant", rowKey: "r" });
    const state = store.get();
    expect(state.tabs).toHaveLength(1);
    expect(state.forking).toEqual({});
    expect(state.toasts).toHaveLength(1);
    expect(state.toasts[0]?.title).toMatch(/^Fork failed: /);
  });
});

describe("forking in a window", () => {
  it("leaves the showing to the window the app opened", async () => {
    m.fork.mockResolvedValue(reply({ window: "w-2" }));
    await forkAt({ threadId: "src", turn: 1, role: "assistant", rowKey: "r", invert: true });
    expect(m.fork).toHaveBeenCalledWith("src", { kind: "after", turn: 1 }, true, null, null);
    expect(m.openWindow).not.toHaveBeenCalled();
    expect(store.get().tabs).toHaveLength(1);
    expect(perf().forks).toMatchObject([{ window: "w-2", opensIn: "window" }]);
    expect(store.get().toasts[0]?.message).toMatch(/^Opened in a new window/);
  });

  it("opens a window itself when the app could not, with the prompt to put back", async () => {
    m.fork.mockResolvedValue(reply({ prefill: "again" }));
    m.openWindow.mockResolvedValue("w-3");
    await forkAt({ threadId: "src", turn: 1, role: "user", rowKey: "r", invert: true });
    expect(m.openWindow).toHaveBeenCalledWith(
      [{ thread_id: "fork", kind: "conversation" }],
      { thread_id: "fork", text: "again" },
      true,
    );
    expect(perf().forks[0]?.window).toBe("w-3");
  });
});

describe("keyboard forks", () => {
  it("fork at the selected message", async () => {
    m.fork.mockResolvedValue(reply());
    store.set({ selected: { src: "2|user|turn-2:0" } });
    forkSelected();
    await vi.waitFor(() => expect(m.fork).toHaveBeenCalledWith("src", { kind: "before", turn: 2 }, false, null, null));
  });

  it("fork after the latest reply without a selection", async () => {
    m.fork.mockResolvedValue(reply());
    forkSelected(true);
    await vi.waitFor(() => expect(m.fork).toHaveBeenCalledWith("src", { kind: "after", turn: 3 }, true, null, null));
  });

  it("do nothing without a conversation that has turns", () => {
    updateSlot("src", (s) => ({ ...s, detail: threadDetail("src", 0) }));
    forkSelected();
    forkLatest();
    store.set({ tabs: [{ id: "x1", thread_id: "src", kind: "terminal" }] });
    forkSelected();
    expect(m.fork).not.toHaveBeenCalled();
  });
});
