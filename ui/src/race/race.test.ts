import { beforeEach, describe, expect, it, vi } from "vitest";
import type { KeepPlan } from "../bindings/KeepPlan";
import type { RaceLane } from "../bindings/RaceLane";
import * as ipc from "../ipc";
import { store, updateSlot } from "../state";
import { freshWindow } from "../testing/freshWindow";
import { threadDetail } from "../testing/threads";
import { actionForKey } from "../shortcuts";
import { keepLane, raceSelected, races, startRace } from "./race";

vi.mock("../ipc", async () => ({
  ...(await import("../testing/ipcMock")),
  raceStart: vi.fn(),
  keepPlan: vi.fn(),
  keep: vi.fn(),
  onRaceLane: vi.fn(),
  onRaceEnded: vi.fn(),
}));
const m = vi.mocked(ipc);

type LaneHandler = Parameters<typeof ipc.onRaceLane>[0];
type EndHandler = Parameters<typeof ipc.onRaceEnded>[0];
let laneEvent: LaneHandler = () => {};
let endEvent: EndHandler = () => {};

function lane(n: number, over: Partial<RaceLane> = {}): RaceLane {
  return {
    lane: n,
    harness: "pi",
    model: null,
    thread_id: `lane-${n}`,
    cwd: `/w/lane-${n}`,
    state: "queued",
    elapsed_ms: 0,
    files: null,
    message: null,
    check: null,
    usage: null,
    spent: null,
    ...over,
  };
}

const ask = { threadId: "src", turn: 2, role: "assistant" as const, prefill: "" };

beforeEach(() => {
  freshWindow();
  races.set({ ask: null, runs: {}, shown: {} });
  m.onRaceLane.mockImplementation((h) => {
    laneEvent = h;
    return Promise.resolve(() => {});
  });
  m.onRaceEnded.mockImplementation((h) => {
    endEvent = h;
    return Promise.resolve(() => {});
  });
  m.show.mockImplementation((id: string) => Promise.resolve(threadDetail(id, 3)));
  m.raceStart.mockResolvedValue("race-1");
});

describe("a race", () => {
  it("starts from the dialog's choice, shows in the source's tab and follows its lanes", async () => {
    const ok = await startRace(ask, {
      lanes: [
        { harness: "pi", model: "fake/b" },
        { harness: "pi", model: null },
      ],
      prompt: "go",
      sharedFolder: false,
      check: "npm test",
    });
    expect(ok).toBe(true);
    expect(m.raceStart).toHaveBeenCalledWith({
      thread_id: "src",
      at: { kind: "after", turn: 2 },
      lanes: [
        { harness: "pi", model: "fake/b" },
        { harness: "pi", model: null },
      ],
      prompt: "go",
      shared_folder: false,
      check: "npm test",
      max_parallel: null,
      budget_usd: null,
    });
    expect(races.get().shown).toEqual({ src: "race-1" });
    expect(races.get().ask).toBeNull();

    laneEvent({ run: "race-1", source: "src", lane: lane(2) });
    laneEvent({ run: "race-1", source: "src", lane: lane(1, { state: "running" }) });
    const run = races.get().runs["race-1"];
    expect(run?.lanes.map((l) => [l.lane, l.state])).toEqual([
      [1, "running"],
      [2, "queued"],
    ]);
    expect(run?.runningSince["lane-1"]).toBeTypeOf("number");
    // Each lane's live turn is followed: its thread has a slot.
    expect(store.get().slots["lane-1"]).toBeDefined();

    endEvent({ run: "race-1", source: "src", race: { race_id: "r", source: "src", max_parallel: 2, shared_folder: false, lanes: [lane(1, { state: "done" }), lane(2, { state: "failed", message: "pi offers no model x" })] }, error: null });
    const ended = races.get().runs["race-1"];
    expect(ended?.ended).toBe(true);
    expect(ended?.lanes.map((l) => l.state)).toEqual(["done", "failed"]);
  });

  it("a refused start says why and shows nothing", async () => {
    m.raceStart.mockRejectedValue(new ipc.IpcError("invalid_input", "a race has 2 to 8 lanes (asked for 1)"));
    const ok = await startRace({ ...ask, role: "user" }, { lanes: [{ harness: null, model: null }], prompt: "x", sharedFolder: false, check: null });
    expect(ok).toBe(false);
    expect(m.raceStart.mock.calls[0]?.[0].at).toEqual({ kind: "before", turn: 2 });
    expect(races.get().shown).toEqual({});
    expect(store.get().toasts.some((t) => t.kind === "error" && (t.message ?? "").includes("2 to 8 lanes"))).toBe(true);
  });

  it("keeps a lane with exactly the plan shown", async () => {
    await startRace(ask, { lanes: [{ harness: null, model: null }, { harness: null, model: null }], prompt: "go", sharedFolder: false, check: null });
    const plan: KeepPlan = { race_id: "r", source: "src", kept: "lane-1", others: [{ thread_id: "lane-2", lane: 2, loss: null }] };
    m.keep.mockResolvedValue({ plan, brought_back: { from: "a", to: "b", files: [] } });
    expect(await keepLane("race-1", plan)).toBe(true);
    expect(m.keep).toHaveBeenCalledWith("lane-1", plan);
    expect(races.get().runs["race-1"]?.kept).toBe("lane-1");
  });
});

describe("Fork ×N from the keyboard", () => {
  beforeEach(() => {
    store.set({ tabs: [{ id: "x1", thread_id: "src", kind: "conversation" }], activeTab: "x1" });
    updateSlot("src", (s) => ({ ...s, detail: threadDetail("src", 3) }));
  });

  it("opens the race dialog at the selected message, a prompt prefilled with it", () => {
    const key = new KeyboardEvent("keydown", { key: "R", ctrlKey: true, shiftKey: true });
    expect(actionForKey(key)).toBe("race_selected");
    store.set({ selected: { src: "2|user|turn-2:0" } });
    raceSelected();
    expect(races.get().ask).toEqual({ threadId: "src", turn: 2, role: "user", prefill: "prompt 2" });
  });

  it("opens it after the latest reply without a selection, and not outside a conversation", () => {
    raceSelected();
    expect(races.get().ask).toEqual({ threadId: "src", turn: 3, role: "assistant", prefill: "" });
    races.set({ ask: null });
    store.set({ tabs: [{ id: "x1", thread_id: "src", kind: "terminal" }] });
    raceSelected();
    expect(races.get().ask).toBeNull();
  });
});
