// @vitest-environment jsdom
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { act, cleanup, fireEvent, render } from "@testing-library/react";
import * as ipc from "../ipc";
import type { ApprovalView } from "../ipc";
import { store } from "../state";
import { freshWindow } from "../testing/freshWindow";
import { Approvals } from "./ApprovalCard";

vi.mock("../ipc", () => import("../testing/ipcMock"));
const m = vi.mocked(ipc);

const evil = `<img src=x onerror="window.__pwned=1">`;

function request(id: string, subject: ApprovalView["subject"], always = true): ApprovalView {
  return { id, turn: 1, tool_call_id: null, subject, can_approve_for_session: always };
}

function waiting(...requests: ApprovalView[]) {
  act(() => store.set({ approvals: { t1: requests } }));
}

beforeEach(() => {
  freshWindow();
  m.answerApproval.mockReset().mockResolvedValue(undefined);
});
afterEach(cleanup);

describe("the approval card", () => {
  it("shows a command and its folder as text, never markup", () => {
    const { container } = render(<Approvals threadId="t1" />);
    waiting(request("r1", { kind: "command", command: `echo ${evil}`, cwd: "/work" }));
    const card = container.querySelector('[data-approval-id="r1"]');
    expect(card?.querySelector("pre")?.textContent).toBe(`echo ${evil}`);
    expect(card?.textContent).toContain("/work");
    expect(container.querySelector("img")).toBeNull();
  });

  it("shows files with their diff, and a tool's input as JSON", () => {
    const { container } = render(<Approvals threadId="t1" />);
    waiting(
      request("r1", { kind: "file_change", paths: ["a.txt"], diff: `+${evil}` }),
      request("r2", { kind: "tool", name: "Fetch", input: { url: evil } }, false),
    );
    const files = container.querySelector('[data-approval-id="r1"]');
    expect(files?.textContent).toContain("a.txt");
    expect(files?.querySelector('[data-approval-part="diff"]')?.textContent).toBe(`+${evil}`);
    const tool = container.querySelector('[data-approval-id="r2"]');
    expect(tool?.querySelector("pre")?.textContent).toBe(JSON.stringify({ url: evil }, null, 2));
    expect(tool?.querySelector('[data-action="approve-for-session"]')).toBeNull();
    expect(container.querySelector("img")).toBeNull();
  });

  it("answers with the button's decision", () => {
    waiting(request("r1", { kind: "command", command: "ls", cwd: null }));
    const cases = [
      ["approve", "approve"],
      ["approve-for-session", "approve_for_session"],
      ["decline", "decline"],
      ["stop-turn", "decline_and_stop"],
    ] as const;
    // A card is busy once answered: a fresh one per button.
    for (const [action, decision] of cases) {
      m.answerApproval.mockClear();
      cleanup();
      const { container } = render(<Approvals threadId="t1" />);
      fireEvent.click(container.querySelector(`[data-action="${action}"]`)!);
      expect(m.answerApproval).toHaveBeenCalledWith("t1", "r1", decision);
    }
  });

  it("approves the oldest on Enter when the card has focus", () => {
    const { container } = render(<Approvals threadId="t1" />);
    waiting(
      request("r1", { kind: "command", command: "ls", cwd: null }),
      request("r2", { kind: "command", command: "pwd", cwd: null }),
    );
    fireEvent.keyDown(container.querySelector('[data-approval-id="r2"]')!, { key: "Enter" });
    expect(m.answerApproval).toHaveBeenCalledWith("t1", "r2", "approve");
    m.answerApproval.mockClear();
    fireEvent.keyDown(document.body, { key: "Enter" });
    expect(m.answerApproval).toHaveBeenCalledWith("t1", "r1", "approve");
  });
});
