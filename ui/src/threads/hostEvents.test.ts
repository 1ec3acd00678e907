import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import * as ipc from "../ipc";
import { store, updateSlot } from "../state";
import { freshWindow } from "../testing/freshWindow";
import { threadDetail } from "../testing/threads";
import { handleHostEvent } from "./hostEvents";

vi.mock("../ipc", () => import("../testing/ipcMock"));
const m = vi.mocked(ipc);

beforeEach(() => {
  freshWindow();
  vi.useFakeTimers();
  m.threads.mockResolvedValue([]);
  m.show.mockImplementation((id: string) => Promise.resolve(threadDetail(id)));
});

afterEach(() => {
  vi.runOnlyPendingTimers();
  vi.useRealTimers();
});

/** Thread `id` shown in a tab, its detail read (`turns` turns). */
function shown(id: string, turns = 2) {
  store.set((s) => ({ tabs: [...s.tabs, { id: `tab-${id}`, thread_id: id, kind: "conversation" }] }));
  updateSlot(id, (s) => ({ ...s, detail: threadDetail(id, turns) }));
}

describe("Host events", () => {
  it("mark any thread streaming while its turn runs", () => {
    handleHostEvent({ type: "turn_started", thread_id: "elsewhere" });
    expect(store.get().streaming.elsewhere).toBe(true);
    expect(store.get().slots.elsewhere).toBeUndefined();
    handleHostEvent({ type: "turn_ended", thread_id: "elsewhere", outcome: "completed", message: null });
    expect(store.get().streaming.elsewhere).toBe(false);
  });

  it("build the live turn of a shown thread, after its stored turns", () => {
    shown("a", 3);
    handleHostEvent({ type: "turn_started", thread_id: "a" });
    handleHostEvent({ type: "text_delta", thread_id: "a", text: "Hel" });
    handleHostEvent({ type: "text_delta", thread_id: "a", text: "lo" });
    // Deltas are taken in once per frame, together.
    expect(store.get().slots.a?.live?.items).toEqual([]);
    vi.advanceTimersByTime(300);
    const live = store.get().slots.a?.live;
    expect(live?.baseTurns).toBe(3);
    expect(live?.items).toEqual([{ kind: "text", text: "Hello" }]);
  });

  it("take a thread's pending text in before its next event", () => {
    shown("a", 1);
    handleHostEvent({ type: "turn_started", thread_id: "a" });
    handleHostEvent({ type: "text_delta", thread_id: "a", text: "Running it" });
    handleHostEvent({ type: "tool_call", thread_id: "a", id: "t1", name: "Bash", input: { command: "ls" } });
    handleHostEvent({ type: "text_delta", thread_id: "a", text: "Done" });
    handleHostEvent({ type: "turn_ended", thread_id: "a", outcome: "completed", message: null });
    const items = store.get().slots.a?.live?.items;
    expect(items?.map((i) => (i.kind === "text" ? i.text : i.name))).toEqual(["Running it", "Bash", "Done"]);
  });

  it("ignore the deltas of threads this window does not show", () => {
    handleHostEvent({ type: "text_delta", thread_id: "b", text: "x" });
    vi.advanceTimersByTime(300);
    expect(store.get().slots.b).toBeUndefined();
  });

  it("re-read the thread and the list once its turn ended", () => {
    shown("a");
    handleHostEvent({ type: "turn_started", thread_id: "a" });
    handleHostEvent({ type: "turn_ended", thread_id: "a", outcome: "completed", message: null });
    vi.advanceTimersByTime(120);
    expect(m.show).toHaveBeenCalledWith("a");
    expect(m.threads).toHaveBeenCalledTimes(1);
  });

  it("re-read the list on any change, a thread only when shown", () => {
    handleHostEvent({ type: "thread_changed", thread_id: "b" });
    vi.advanceTimersByTime(120);
    expect(m.threads).toHaveBeenCalledTimes(1);
    expect(m.show).not.toHaveBeenCalled();

    shown("a");
    handleHostEvent({ type: "thread_changed", thread_id: "a" });
    vi.advanceTimersByTime(120);
    expect(m.show).toHaveBeenCalledWith("a");
  });

  it("say an error of a thread in a tab, in words", () => {
    shown("a");
    handleHostEvent({ type: "error", thread_id: "a", code: "harness_exited", message: "exit 1" });
    expect(store.get().toasts).toMatchObject([
      { kind: "error", title: "Thread a: harness exited", message: "exit 1" },
    ]);
  });
});
