import { afterEach, describe, expect, it, vi } from "vitest";
import { cleanup, fireEvent, render } from "@testing-library/react";
import * as actions from "../threads/threadActions";
import { SessionButton, relativeTime, sessionLabel } from "./SessionButton";

vi.mock("../threads/threadActions", () => ({ importAndOpen: vi.fn(async () => {}) }));
afterEach(cleanup);

const session = {
  harness: "claude" as const,
  session_id: "0123456789abcdef",
  path: "/home/me/.claude/projects/-home-me-parser/0123456789abcdef.jsonl",
  modified: Date.now() - 3 * 3600_000,
  thread_id: null,
};

describe("a session on this machine", () => {
  it("is named by its Claude project folder and id, with its harness and age", () => {
    expect(sessionLabel(session.path, session.session_id)).toBe("parser · 01234567");
    expect(sessionLabel("/s/rollout-1.jsonl", "abcdef0123")).toBe("abcdef01");
    const now = 1_000_000_000_000;
    expect(relativeTime(now - 10_000, now)).toBe("just now");
    expect(relativeTime(now - 5 * 60_000, now)).toBe("5m ago");
    expect(relativeTime(now - 2 * 86_400_000, now)).toBe("2d ago");
    const view = render(<SessionButton session={session} title={session.path} />);
    const button = view.getByRole("button");
    expect(button.textContent).toBe("parser · 01234567Claude Code · 3h ago");
    expect(button.dataset.sessionId).toBe(session.session_id);
  });

  it("opens as a thread, after what the list does first", () => {
    const opened = vi.fn();
    const view = render(<SessionButton session={session} title={session.path} onOpened={opened} />);
    fireEvent.click(view.getByRole("button"));
    expect(opened).toHaveBeenCalledOnce();
    expect(actions.importAndOpen).toHaveBeenCalledWith("claude", session.path, null);
  });
});
