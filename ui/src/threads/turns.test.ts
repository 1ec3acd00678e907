import { beforeEach, describe, expect, it, vi } from "vitest";
import * as ipc from "../ipc";
import { startLive } from "./live";
import { store, updateSlot } from "../state";
import { freshWindow } from "../testing/freshWindow";
import { threadDetail } from "../testing/threads";
import { sendPrompt, setDraft, stopTurn } from "./turns";

vi.mock("../ipc", () => import("../testing/ipcMock"));
const m = vi.mocked(ipc);

beforeEach(() => {
  freshWindow();
  updateSlot("a", (s) => ({ ...s, detail: threadDetail("a", 2) }));
});

describe("turns", () => {
  it("send a prompt: shown live at once, the draft cleared", async () => {
    m.startTurn.mockResolvedValue(undefined);
    setDraft("a", "hello");
    expect(await sendPrompt("a", "hello")).toBe(true);
    expect(m.startTurn).toHaveBeenCalledWith("a", "hello");
    expect(store.get().drafts.a).toBe("");
    expect(store.get().slots.a?.live).toMatchObject({ prompt: "hello", baseTurns: 2, phase: "starting" });
  });

  it("send nothing blank, nor while a turn runs", async () => {
    expect(await sendPrompt("a", "  \n")).toBe(false);
    updateSlot("a", (s) => ({ ...s, live: { ...startLive("first", 2), phase: "streaming" } }));
    expect(await sendPrompt("a", "second")).toBe(false);
    expect(m.startTurn).not.toHaveBeenCalled();
  });

  it("give the text back when the turn could not start", async () => {
    m.startTurn.mockRejectedValue(new Error("no harness"));
    expect(await sendPrompt("a", "keep me")).toBe(false);
    expect(store.get().drafts.a).toBe("keep me");
    expect(store.get().slots.a?.live).toMatchObject({ phase: "ended", outcome: "failed" });
    expect(store.get().slots.a?.live?.error).toMatch(/no harness/i);
  });

  it("stop a turn, saying so when it fails", async () => {
    m.interrupt.mockRejectedValue(new Error("not running"));
    await stopTurn("a");
    expect(m.interrupt).toHaveBeenCalledWith("a");
    expect(store.get().toasts[0]?.title).toMatch(/^Stop: /);
  });
});
