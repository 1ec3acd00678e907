import { beforeEach, describe, expect, it, vi } from "vitest";
import * as ipc from "../ipc";
import { store, updateSlot } from "../state";
import { freshWindow } from "../testing/freshWindow";
import { threadDetail } from "../testing/threads";
import { reveal, sourceTurnNumber } from "./reveal";

vi.mock("../ipc", () => import("../testing/ipcMock"));
const m = vi.mocked(ipc);

beforeEach(() => {
  freshWindow();
});

describe("lineage jumps", () => {
  it("open the thread's tab and highlight the message, anew each time", () => {
    updateSlot("src", (s) => ({ ...s, detail: threadDetail("src") }));
    reveal("src", 2, "assistant");
    expect(store.get().tabs.map((t) => t.thread_id)).toEqual(["src"]);
    const first = store.get().highlight;
    expect(first).toMatchObject({ threadId: "src", turn: 2, role: "assistant" });
    reveal("src", 2, "assistant");
    expect(store.get().highlight?.seq).toBe((first?.seq ?? 0) + 1);
    expect(store.get().tabs).toHaveLength(1);
  });

  it("number a source's turn from the thread held here", async () => {
    updateSlot("held", (s) => ({ ...s, detail: threadDetail("held", 3) }));
    expect(await sourceTurnNumber("held", "turn-3")).toBe(3);
    expect(m.show).not.toHaveBeenCalled();
  });

  it("read a source once for its turn numbers, and remember a turn that is gone", async () => {
    m.show.mockResolvedValue(threadDetail("far", 2));
    expect(await sourceTurnNumber("far", "turn-2")).toBe(2);
    expect(await sourceTurnNumber("far", "turn-1")).toBe(1);
    expect(await sourceTurnNumber("far", "turn-9")).toBeNull();
    expect(await sourceTurnNumber("far", "turn-9")).toBeNull();
    expect(m.show).toHaveBeenCalledTimes(2);
  });
});
