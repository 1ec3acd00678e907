import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import * as ipc from "../ipc";
import { store, updateSlot } from "../state";
import { freshWindow } from "../testing/freshWindow";
import { threadDetail } from "../testing/threads";
import { stripTurns } from "./cache";
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

  it("re-read the thread once its turn ended (the list hears of it from thread_changed)", () => {
    shown("a");
    handleHostEvent({ type: "turn_started", thread_id: "a" });
    handleHostEvent({ type: "turn_ended", thread_id: "a", outcome: "completed", message: null });
    vi.advanceTimersByTime(120);
    expect(m.show).toHaveBeenCalledWith("a");
    expect(m.threads).not.toHaveBeenCalled();
  });

  it("re-read the list on a change without the row, a thread only when shown", () => {
    handleHostEvent({ type: "thread_changed", thread_id: "b", thread: null });
    vi.advanceTimersByTime(120);
    expect(m.threads).toHaveBeenCalledTimes(1);
    expect(m.show).not.toHaveBeenCalled();

    shown("a");
    handleHostEvent({ type: "thread_changed", thread_id: "a", thread: null });
    vi.advanceTimersByTime(120);
    expect(m.show).toHaveBeenCalledWith("a");
  });

  it("take the row a change carries into the list, without reading every thread", () => {
    const b = stripTurns(threadDetail("b"));
    store.set({ threads: [b] });
    handleHostEvent({ type: "thread_changed", thread_id: "b", thread: { ...b, title: "Renamed", revision: 2 } });
    handleHostEvent({ type: "thread_changed", thread_id: "c", thread: stripTurns(threadDetail("c")) });
    // A row older than the one known (two writers' events crossing) is left out.
    handleHostEvent({ type: "thread_changed", thread_id: "b", thread: { ...b, title: "Stale", revision: 1 } });
    expect(store.get().threads.map((t) => [t.id, t.title])).toEqual([
      ["b", "Renamed"],
      ["c", "Thread c"],
    ]);
    vi.advanceTimersByTime(120);
    expect(m.threads).not.toHaveBeenCalled();
    // Not shown here: no conversation to read again.
    expect(m.show).not.toHaveBeenCalled();
  });

  it("say an error of a thread in a tab, in words", () => {
    shown("a");
    handleHostEvent({ type: "error", thread_id: "a", code: "harness_failed", message: "exit 1" });
    expect(store.get().toasts).toMatchObject([
      { kind: "error", title: "Thread a: harness failed", message: "exit 1" },
    ]);
  });
});
