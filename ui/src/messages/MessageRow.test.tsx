// @vitest-environment jsdom
import { afterEach, describe, expect, it, vi } from "vitest";
import { cleanup, fireEvent, render, screen } from "@testing-library/react";
import type { ThreadView } from "../bindings/ThreadView";
import { MessageRow, StatusLine } from "./MessageRow";
import type { MessageRow as MessageRowData } from "./rows";
import { toolSummary } from "./ToolBlock";

afterEach(cleanup);

const thread: ThreadView = {
  id: "t1",
  harness: "claude",
  cwd: "/w",
  title: "T",
  state: "ready",
  native: { session_id: "s", path: null },
  fork: null,
  permissions: { mode: null, sandbox: null },
  revision: 1,
  created_at: 1,
  updated_at: 1,
};

function row(partial: Partial<MessageRowData> & Pick<MessageRowData, "role" | "message">): MessageRowData {
  return {
    kind: "message",
    key: "k",
    turn: 2,
    turnId: "turn-2",
    fork: { ok: true },
    forks: [],
    cost: null,
    ...partial,
  };
}

function renderRow(r: MessageRowData, extra: Partial<Parameters<typeof MessageRow>[0]> = {}) {
  const onFork = vi.fn();
  const utils = render(
    <MessageRow
      row={r}
      thread={thread}
      showAuthor
      selected={false}
      highlighted={false}
      forking={false}
      where="window"
      chips={[]}
      onSelect={() => {}}
      onFork={onFork}
      onContextMenu={() => {}}
      onChips={() => {}}
      {...extra}
    />,
  );
  return { ...utils, onFork };
}

describe("MessageRow", () => {
  it("renders a user message as plain text with the stable hooks and Edit and fork", () => {
    const { container, onFork } = renderRow(
      row({ role: "user", message: { role: "user", text: "**not bold** <b>x</b>", tool: null, error: null } }),
    );
    const article = container.querySelector("article")!;
    expect(article.dataset.turn).toBe("2");
    expect(article.dataset.role).toBe("user");
    // User text is shown as typed, never as Markdown or HTML.
    expect(article.querySelector(".msg__text")?.textContent).toBe("**not bold** <b>x</b>");
    expect(article.querySelector("strong, b")).toBeNull();
    const fork = screen.getByRole("button", { name: "Edit and fork from here" });
    expect(fork.dataset.action).toBe("fork");
    expect(fork.getAttribute("aria-disabled")).toBeNull();
    fireEvent.click(fork);
    expect(onFork).toHaveBeenCalledWith(expect.objectContaining({ role: "user" }), false);
    fireEvent.click(fork, { ctrlKey: true });
    expect(onFork).toHaveBeenLastCalledWith(expect.objectContaining({ role: "user" }), true);
  });

  it("renders a reply as Markdown with Fork after this reply", () => {
    const { container } = renderRow(
      row({
        role: "assistant",
        message: { role: "assistant", text: "Use `ls`:\n\n```bash\nls -la\n```", tool: null, error: null },
      }),
    );
    expect(container.querySelector("article")?.dataset.role).toBe("assistant");
    expect(container.querySelector(".md code")?.textContent).toBe("ls");
    expect(container.querySelector(".md pre.code")?.textContent).toContain("ls -la");
    expect(screen.getByText("Claude Code")).toBeTruthy();
    const fork = screen.getByRole("button", { name: "Fork after this reply" });
    expect(fork.title).toContain("new window");
  });

  it("disables Fork with the reason, and shows an error inline", () => {
    const { onFork } = renderRow(
      row({
        role: "assistant",
        fork: { ok: false, why: "Can't fork: this turn is still running" },
        message: { role: "assistant", text: "partial", tool: null, error: "API error 500" },
      }),
    );
    const fork = screen.getByRole("button", { name: "Fork after this reply" });
    expect(fork.getAttribute("aria-disabled")).toBe("true");
    expect(fork.title).toBe("Can't fork: this turn is still running");
    fireEvent.click(fork);
    expect(onFork).not.toHaveBeenCalled();
    expect(screen.getByRole("alert").textContent).toBe("API error 500");
  });

  it("renders a tool call collapsed, with its input and output on demand", () => {
    const { container } = renderRow(
      row({
        role: "tool",
        message: {
          role: "tool",
          text: "Bash: tool-ok",
          tool: { name: "Bash", input: { command: "echo tool-ok", description: "say ok" }, output: "tool-ok\n", is_error: false },
          error: null,
        },
      }),
    );
    const block = container.querySelector(".tool")!;
    expect(container.querySelector("article")?.dataset.role).toBe("tool");
    expect(block.getAttribute("data-open")).toBe("false");
    expect(block.querySelector(".tool__name")?.textContent).toBe("Bash");
    expect(block.querySelector(".tool__summary")?.textContent).toBe("echo tool-ok");
    expect(block.querySelector(".tool__body")).toBeNull();
    const head = block.querySelector("button.tool__head")!;
    expect(head.getAttribute("aria-expanded")).toBe("false");
    fireEvent.click(head);
    expect(block.getAttribute("data-open")).toBe("true");
    const pres = block.querySelectorAll(".tool__pre");
    expect(pres[0]?.textContent).toContain('"command": "echo tool-ok"');
    expect(pres[1]?.textContent).toBe("tool-ok\n");
    expect(screen.getByRole("button", { name: "Fork after this turn" })).toBeTruthy();
  });

  it("marks a failed tool call", () => {
    const { container } = renderRow(
      row({
        role: "tool",
        message: { role: "tool", text: "", tool: { name: "Read", input: { file_path: "/x" }, output: "ENOENT", is_error: true }, error: null },
      }),
    );
    expect(container.querySelector(".tool")?.getAttribute("data-state")).toBe("error");
    expect(toolSummary({ file_path: "/x" })).toBe("/x");
    expect(toolSummary({ cmd: ["ls", "-l"] })).toBe("ls -l");
  });

  it("renders a reply's payload inert: no image, script or javascript: link", () => {
    (window as unknown as { __pwned?: number }).__pwned = undefined;
    const { container } = renderRow(
      row({
        role: "assistant",
        message: {
          role: "assistant",
          text: 'x <img src=x onerror="window.__pwned=1"> <script>window.__pwned=2</script> [go](javascript:window.__pwned=3)',
          tool: null,
          error: null,
        },
      }),
    );
    const md = container.querySelector(".md")!;
    expect(md.querySelector("img, script")).toBeNull();
    const link = md.querySelector("a");
    expect(link?.hasAttribute("href")).toBe(false);
    if (link) fireEvent.click(link);
    expect((window as unknown as { __pwned?: number }).__pwned).toBeUndefined();
  });

  it("shows fork chips", () => {
    const onChips = vi.fn();
    renderRow(
      row({ role: "assistant", message: { role: "assistant", text: "r", tool: null, error: null } }),
      { chips: [{ id: "f1", title: "Fork one" }, { id: "f2", title: "Fork two" }], onChips },
    );
    const chip = screen.getByRole("button", { name: /2 forks/ });
    fireEvent.click(chip);
    expect(onChips).toHaveBeenCalled();
  });
});

describe("StatusLine", () => {
  it("shows a running turn, a failure and an interruption", () => {
    const base = { kind: "status" as const, key: "s", turn: 3, startedAt: Date.now(), streaming: false };
    const { container, rerender } = render(
      <StatusLine row={{ ...base, phase: "streaming", outcome: null, error: null, streaming: true }} harness="claude" />,
    );
    expect(container.textContent).toContain("Working");
    rerender(<StatusLine row={{ ...base, phase: "ended", outcome: "failed", error: "boom" }} harness="claude" />);
    expect(screen.getByRole("alert").textContent).toContain("boom");
    rerender(<StatusLine row={{ ...base, phase: "ended", outcome: "interrupted", error: null }} harness="claude" />);
    expect(container.textContent).toContain("Interrupted");
    rerender(<StatusLine row={{ ...base, phase: "ended", outcome: "completed", error: null }} harness="claude" />);
    expect(container.textContent).toBe("");
  });
});
