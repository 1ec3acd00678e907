import { beforeEach, describe, expect, it, vi } from "vitest";
import * as ipc from "../ipc";
import type { ApprovalView } from "../ipc";
import { store } from "../state";
import { freshWindow } from "../testing/freshWindow";
import { answerApproval, applyApprovalEvent, pendingOf, refreshApprovals, withRequest } from "./approvals";

vi.mock("../ipc", () => import("../testing/ipcMock"));
const m = vi.mocked(ipc);

function request(id: string): ApprovalView {
  return {
    id,
    turn: 1,
    tool_call_id: null,
    subject: { kind: "file_change", paths: [`${id}.txt`], diff: null },
    reason: null,
    can_approve_for_session: true,
    session_rules: ["change it again"],
  };
}

beforeEach(() => {
  freshWindow();
  m.answerApproval.mockReset();
  m.pendingApprovals.mockReset();
});

describe("approvals", () => {
  it("follow the requested and resolved events, per thread", () => {
    applyApprovalEvent({ type: "approval_requested", thread_id: "a", request: request("r1") });
    applyApprovalEvent({ type: "approval_requested", thread_id: "a", request: request("r2") });
    applyApprovalEvent({ type: "approval_requested", thread_id: "b", request: request("r3") });
    expect(pendingOf("a").map((r) => r.id)).toEqual(["r1", "r2"]);
    applyApprovalEvent({ type: "approval_resolved", thread_id: "a", id: "r1", how: "approve" });
    expect(pendingOf("a").map((r) => r.id)).toEqual(["r2"]);
    applyApprovalEvent({ type: "turn_ended", thread_id: "a", outcome: "completed", message: null });
    expect(store.get().approvals.a).toBeUndefined();
    expect(pendingOf("b")).toHaveLength(1);
  });

  it("replace a re-raised id instead of doubling it", () => {
    const again = { ...request("r1"), turn: 2 };
    expect(withRequest([request("r1"), request("r2")], again).map((r) => [r.id, r.turn])).toEqual([
      ["r2", 1],
      ["r1", 2],
    ]);
  });

  it("are read from the Host for a thread opened after they were raised", async () => {
    m.pendingApprovals.mockResolvedValue([request("old")]);
    await refreshApprovals("a");
    expect(m.pendingApprovals).toHaveBeenCalledWith("a");
    expect(pendingOf("a").map((r) => r.id)).toEqual(["old"]);
  });

  it("keep an event that crossed a re-read", async () => {
    let reply: (list: ApprovalView[]) => void = () => {};
    m.pendingApprovals.mockReturnValue(new Promise((resolve) => (reply = resolve)));
    const reading = refreshApprovals("a");
    applyApprovalEvent({ type: "approval_requested", thread_id: "a", request: request("new") });
    reply([]);
    await reading;
    expect(pendingOf("a").map((r) => r.id)).toEqual(["new"]);
  });

  it("leave the list once answered", async () => {
    applyApprovalEvent({ type: "approval_requested", thread_id: "a", request: request("r1") });
    m.answerApproval.mockResolvedValue(undefined);
    expect(await answerApproval("a", "r1", "decline")).toBe(true);
    expect(m.answerApproval).toHaveBeenCalledWith("a", "r1", "decline");
    expect(pendingOf("a")).toEqual([]);
  });

  it("show a toast and re-read the Host when an answer fails", async () => {
    applyApprovalEvent({ type: "approval_requested", thread_id: "a", request: request("r1") });
    m.answerApproval.mockRejectedValue(new ipc.IpcError("invalid_input", "no pending approval request"));
    m.pendingApprovals.mockResolvedValue([]);
    expect(await answerApproval("a", "r1", "approve")).toBe(false);
    expect(store.get().toasts.at(-1)?.kind).toBe("error");
    expect(pendingOf("a")).toEqual([]);
  });
});
