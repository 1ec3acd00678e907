import { beforeEach, describe, expect, it, vi } from "vitest";
import * as ipc from "../ipc";
import { startLive } from "./live";
import { perf } from "../perf";
import { store, updateSlot } from "../state";
import { freshWindow } from "../testing/freshWindow";
import { threadDetail } from "../testing/threads";
import { loadThread, messageCount, refreshThreads, reloadAll, sameThread, stripTurns } from "./cache";

vi.mock("../ipc", () => import("../testing/ipcMock"));
const m = vi.mocked(ipc);

beforeEach(() => {
  freshWindow();
});

describe("the thread list", () => {
  it("is read from the Host", async () => {
    const list = [stripTurns(threadDetail("a"))];
    m.threads.mockResolvedValue(list);
    await refreshThreads();
    expect(store.get().threads).toBe(list);
    expect(store.get().threadsLoaded).toBe(true);
  });

  it("counts as loaded when the read fails, and says why", async () => {
    m.threads.mockRejectedValue(new Error("gone"));
    await refreshThreads();
    expect(store.get().threadsLoaded).toBe(true);
    expect(store.get().toasts[0]?.title).toMatch(/^Threads: /);
  });
});

describe("a thread's detail", () => {
  it("is read into its slot and the list, measured the first time only", async () => {
    const detail = threadDetail("a", 3);
    m.show.mockResolvedValue(detail);
    const read = loadThread("a");
    expect(store.get().slots.a?.loading).toBe(true);
    expect(await read).toBe(detail);
    expect(store.get().slots.a).toMatchObject({ detail, loading: false, error: undefined });
    expect(store.get().threads).toEqual([stripTurns(detail)]);
    expect(perf().reads).toHaveLength(1);
    expect(perf().opens).toMatchObject([{ threadId: "a", messages: 6 }]);

    await loadThread("a");
    expect(perf().reads).toHaveLength(2);
    expect(perf().opens).toHaveLength(1);
  });

  it("keeps the list's entry when nothing it shows changed (the sidebar does not re-render)", async () => {
    const detail = threadDetail("a");
    m.show.mockResolvedValue(detail);
    await loadThread("a");
    const entry = store.get().threads[0];
    m.show.mockResolvedValue({ ...threadDetail("a"), turns: [] });
    await loadThread("a");
    expect(store.get().threads[0]).toBe(entry);

    m.show.mockResolvedValue(threadDetail("a", 2, { revision: 2 }));
    await loadThread("a");
    expect(store.get().threads[0]?.revision).toBe(2);
    expect(store.get().threads).toHaveLength(1);
  });

  it("drops a live turn the stored turns now hold, keeps one they do not", async () => {
    updateSlot("a", (s) => ({ ...s, live: { ...startLive("p", 2), phase: "ended", outcome: "failed" } }));
    m.show.mockResolvedValue(threadDetail("a", 2));
    await loadThread("a");
    expect(store.get().slots.a?.live?.outcome).toBe("failed");

    m.show.mockResolvedValue(threadDetail("a", 3));
    await loadThread("a");
    expect(store.get().slots.a?.live).toBeUndefined();
  });

  it("shows why a read failed in the slot", async () => {
    m.show.mockRejectedValue(new Error("unreadable"));
    expect(await loadThread("a")).toBeUndefined();
    const slot = store.get().slots.a;
    expect(slot?.loading).toBe(false);
    expect(slot?.error?.message).toBeTruthy();
  });

  it("re-reads the list and every shown thread after missed events", async () => {
    m.threads.mockResolvedValue([]);
    m.show.mockImplementation((id: string) => Promise.resolve(threadDetail(id)));
    updateSlot("a", (s) => s);
    updateSlot("b", (s) => s);
    reloadAll();
    await vi.waitFor(() => expect(store.get().slots.b?.detail).toBeDefined());
    expect(m.threads).toHaveBeenCalledTimes(1);
    expect(m.show.mock.calls.map(([id]) => id).sort()).toEqual(["a", "b"]);
  });
});

describe("thread helpers", () => {
  it("compare what the list shows, strip turns and count messages", () => {
    const a = stripTurns(threadDetail("a"));
    expect("turns" in a).toBe(false);
    expect(sameThread(a, { ...a })).toBe(true);
    expect(sameThread(a, { ...a, title: "Other" })).toBe(false);
    expect(sameThread(a, { ...a, state: "archived" })).toBe(false);
    expect(messageCount(threadDetail("a", 4))).toBe(8);
  });
});
