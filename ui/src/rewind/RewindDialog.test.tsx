// @vitest-environment jsdom
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { cleanup, fireEvent, render, waitFor } from "@testing-library/react";
import * as ipc from "../ipc";
import type { RewindPlan } from "../bindings/RewindPlan";
import type { RewoundView } from "../bindings/RewoundView";
import { store } from "../state";
import { freshWindow } from "../testing/freshWindow";
import { threadDetail } from "../testing/threads";
import { stripTurns } from "../threads/cache";
import { RewindDialog } from "./RewindDialog";
import { isRewoundBranch, loadRewoundBranches, rememberRewinds, undoable } from "./rewind";

vi.mock("../ipc", () => import("../testing/ipcMock"));
const m = vi.mocked(ipc);

const thread = stripTurns(threadDetail("x", 0, { title: "Rewind me" }));
const plan: RewindPlan = {
  thread_id: "x",
  kind: "conversation_and_files",
  turn: 2,
  turns: 3,
  changes: [
    { path: "notes.txt", status: "modified", added_lines: 1, removed_lines: 1, binary: false },
    { path: "t3.txt", status: "deleted", added_lines: 0, removed_lines: 0, binary: false },
  ],
  loss: ["notes.txt"],
};

beforeEach(() => {
  freshWindow();
  vi.clearAllMocks();
  store.set({ threads: [thread], dialog: { kind: "rewind", threadId: "x", turn: 2 } });
});
afterEach(cleanup);

describe("Rewind to here", () => {
  it("shows what changes and the loss before anything is written; Cancel writes nothing", async () => {
    m.rewindPlan.mockResolvedValue(plan);
    const view = render(<RewindDialog threadId="x" turn={2} />);
    await view.findByText("t3.txt");
    expect(m.rewindPlan).toHaveBeenCalledWith("x", 2, "conversation_and_files");
    const removed = view.container.querySelector('[data-rewind-file="t3.txt"]') as HTMLElement;
    expect(removed.dataset.status).toBe("deleted");
    expect(view.container.querySelector('[data-rewind-loss="notes.txt"]')).not.toBeNull();
    expect(view.container.querySelector("[data-rewind-later]")?.textContent).toContain("last turn");
    fireEvent.click(view.container.querySelector('[data-action="rewind-cancel"]') as HTMLElement);
    expect(m.rewind).not.toHaveBeenCalled();
    expect(store.get().dialog).toBeNull();
  });

  it("rewinds with exactly the loss shown, for the kind chosen", async () => {
    m.rewindPlan.mockImplementation(async (_t: string, _n: number, kind: RewindPlan["kind"]) => ({
      ...plan,
      kind,
      changes: kind === "conversation" ? [] : plan.changes,
      loss: kind === "conversation" ? [] : plan.loss,
    }));
    const done = { rewind: { id: "r", thread_id: "x", branch_id: "b", turn: 2, kind: "conversation", created_at: 0, undone: false } };
    m.rewind.mockResolvedValue(done as RewoundView);
    m.show.mockResolvedValue(threadDetail("x", 2, { title: "Rewind me" }));
    m.threads.mockResolvedValue([thread]);
    const view = render(<RewindDialog threadId="x" turn={2} />);
    await view.findByText("t3.txt");
    fireEvent.click(view.container.querySelector('[data-rewind-kind="conversation"]') as HTMLElement);
    await waitFor(() => expect(view.container.querySelector('[data-rewind-plan="conversation"]')).not.toBeNull());
    expect(view.container.querySelector("[data-rewind-loss]")).toBeNull();
    fireEvent.click(view.container.querySelector('[data-action="rewind-confirm"]') as HTMLElement);
    await waitFor(() => expect(m.rewind).toHaveBeenCalledWith("x", 2, "conversation", []));
    await waitFor(() => expect(store.get().dialog).toBeNull());
  });

  it("puts a message rewound to before back in the composer, and not for files only", async () => {
    m.rewindPlan.mockImplementation(async (_t: string, _n: number, kind: RewindPlan["kind"]) => ({ ...plan, kind, loss: [] }));
    const done = { rewind: { id: "r", thread_id: "x", branch_id: "b", turn: 2, kind: "conversation", created_at: 0, undone: false } };
    m.rewind.mockResolvedValue(done as RewoundView);
    m.show.mockResolvedValue(threadDetail("x", 2, { title: "Rewind me" }));
    m.threads.mockResolvedValue([thread]);
    const view = render(<RewindDialog threadId="x" turn={2} prefill="the third prompt" />);
    await view.findByText("t3.txt");
    fireEvent.click(view.container.querySelector('[data-rewind-kind="files"]') as HTMLElement);
    await waitFor(() => expect(view.container.querySelector('[data-rewind-plan="files"]')).not.toBeNull());
    fireEvent.click(view.container.querySelector('[data-action="rewind-confirm"]') as HTMLElement);
    await waitFor(() => expect(m.rewind).toHaveBeenCalledWith("x", 2, "files", []));
    await waitFor(() => expect(store.get().dialog).toBeNull());
    expect(store.get().drafts.x).toBeUndefined();
    view.unmount();

    store.set({ dialog: { kind: "rewind", threadId: "x", turn: 2, prefill: "the third prompt" } });
    const again = render(<RewindDialog threadId="x" turn={2} prefill="the third prompt" />);
    await again.findByText("t3.txt");
    fireEvent.click(again.container.querySelector('[data-action="rewind-confirm"]') as HTMLElement);
    await waitFor(() => expect(m.rewind).toHaveBeenLastCalledWith("x", 2, "conversation_and_files", []));
    await waitFor(() => expect(store.get().drafts.x).toBe("the third prompt"));
  });

  it("says in words why a plan cannot be made", async () => {
    m.rewindPlan.mockRejectedValue(new ipc.IpcError("unsupported", "the folder is not in a git repository"));
    const view = render(<RewindDialog threadId="x" turn={2} />);
    const said = await view.findByRole("alert");
    expect(said.textContent).toContain("not in a git repository");
    expect((view.container.querySelector('[data-action="rewind-confirm"]') as HTMLButtonElement).disabled).toBe(true);
  });
});

describe("the rewinds a window knows", () => {
  it("offers Undo for the thread's open rewind and marks its branch", () => {
    rememberRewinds("x", [
      { id: "r2", thread_id: "x", branch_id: "b2", turn: 1, kind: "files", created_at: 2, undone: false },
      { id: "r1", thread_id: "x", branch_id: "b1", turn: 2, kind: "conversation", created_at: 1, undone: true },
    ]);
    expect(undoable("x")?.id).toBe("r2");
    expect(isRewoundBranch("b1")).toBe(true);
    expect(isRewoundBranch("x")).toBe(false);
    rememberRewinds("x", []);
    expect(undoable("x")).toBeUndefined();
  });

  it("marks the branches the Host lists before any of their threads is opened", async () => {
    expect(isRewoundBranch("old")).toBe(false);
    m.rewoundBranches.mockResolvedValue(["old"]);
    await loadRewoundBranches();
    expect(isRewoundBranch("old")).toBe(true);
    expect(isRewoundBranch("x")).toBe(false);
  });
});
