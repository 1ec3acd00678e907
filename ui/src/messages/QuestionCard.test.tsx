// @vitest-environment jsdom
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { act, cleanup, fireEvent, render } from "@testing-library/react";
import * as ipc from "../ipc";
import type { ApprovalView } from "../ipc";
import type { QuestionView } from "../bindings/QuestionView";
import { store } from "../state";
import { freshWindow } from "../testing/freshWindow";
import { Approvals } from "./ApprovalCard";
import { answersOf, complete } from "./QuestionCard";

vi.mock("../ipc", () => import("../testing/ipcMock"));
const m = vi.mocked(ipc);

const evil = `<img src=x onerror="window.__pwned=1">`;

function q(prompt: string, options: string[], free_text = false, header: string | null = null): QuestionView {
  return { header, prompt, options, free_text };
}

function asking(id: string, questions: QuestionView[]): ApprovalView {
  return { id, turn: 1, tool_call_id: null, subject: { kind: "question", questions }, reason: null, can_approve_for_session: false, session_rules: [] };
}

function waiting(...requests: ApprovalView[]) {
  act(() => store.set({ approvals: { t1: requests } }));
}

beforeEach(() => {
  freshWindow();
  m.answerQuestion.mockReset().mockResolvedValue(undefined);
  m.answerApproval.mockReset().mockResolvedValue(undefined);
});
afterEach(cleanup);

describe("answers to questions", () => {
  it("takes the chosen option, or typed text where it fits", () => {
    const qs = [q("Color?", ["red", "blue"]), q("Name?", [], true), q("Size?", ["S"], true)];
    expect(answersOf(qs, ["red", null, "S"], ["", "  Ann ", "XL"])).toEqual(["red", "Ann", "XL"]);
    expect(answersOf(qs, [null, null, "S"], ["typed", "", ""])).toEqual([null, null, "S"]);
    expect(complete(["a", null])).toBeNull();
    expect(complete(["a", "b"])).toEqual(["a", "b"]);
  });
});

describe("the question card", () => {
  it("shows each prompt and option as text, never markup", () => {
    const { container } = render(<Approvals threadId="t1" />);
    waiting(asking("r1", [q(`Pick ${evil}`, [`opt ${evil}`, "two"], false, "Header")]));
    const card = container.querySelector('[data-approval-id="r1"]')!;
    expect(card.querySelector('[data-approval-part="prompt"]')?.textContent).toBe(`Pick ${evil}`);
    expect(card.textContent).toContain(`opt ${evil}`);
    expect(card.textContent).toContain("Header");
    expect(container.querySelector("img")).toBeNull();
    // No approval buttons on a question.
    expect(card.querySelector('[data-action="approve"]')).toBeNull();
  });

  it("answers once every question has an answer, with Enter or Answer", () => {
    const { container } = render(<Approvals threadId="t1" />);
    waiting(asking("r1", [q("Color?", ["red", "blue"]), q("Why?", [], true)]));
    const card = container.querySelector<HTMLElement>('[data-approval-id="r1"]')!;
    const answer = card.querySelector<HTMLButtonElement>('[data-action="answer"]')!;
    expect(answer.disabled).toBe(true);
    fireEvent.click(card.querySelector('input[data-option="blue"]')!);
    // One question still open: Enter does nothing.
    fireEvent.keyDown(card, { key: "Enter" });
    expect(m.answerQuestion).not.toHaveBeenCalled();
    const text = card.querySelector<HTMLInputElement>('input[data-field="answer"]')!;
    fireEvent.change(text, { target: { value: "because" } });
    expect(answer.disabled).toBe(false);
    fireEvent.keyDown(text, { key: "Enter" });
    expect(m.answerQuestion).toHaveBeenCalledWith("t1", "r1", ["blue", "because"]);
  });

  it("dismisses with null, and Enter outside the card neither approves nor answers it", () => {
    const { container } = render(<Approvals threadId="t1" />);
    waiting(asking("r1", [q("Continue?", ["yes", "no"])]));
    fireEvent.keyDown(document.body, { key: "Enter" });
    expect(m.answerApproval).not.toHaveBeenCalled();
    expect(m.answerQuestion).not.toHaveBeenCalled();
    fireEvent.click(container.querySelector('[data-action="dismiss"]')!);
    expect(m.answerQuestion).toHaveBeenCalledWith("t1", "r1", null);
  });
});
