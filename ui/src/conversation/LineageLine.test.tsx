// @vitest-environment jsdom
import { afterEach, describe, expect, it, vi } from "vitest";
import { cleanup, fireEvent, render } from "@testing-library/react";
import { store } from "../state";
import { stripTurns } from "../threads/cache";
import { threadDetail } from "../testing/threads";
import { LineageLine, MovedFromLine } from "./LineageLine";
import { remote } from "../remote/remote";

vi.mock("../ipc", () => import("../testing/ipcMock"));

const source = threadDetail("src", 3, { title: "Plan the parser" });
const fork = { source_thread: "src", source_turn: "turn-2", boundary: "after" as const, source_harness: null, source_turn_number: null };

describe("LineageLine", () => {
  afterEach(() => {
    cleanup();
    store.set({ threads: [], slots: {} });
  });

  it("says a fork in another harness continued there", () => {
    store.set({ threads: [stripTurns(source)], slots: { src: { loading: false, detail: source } } });
    const view = render(<LineageLine fork={fork} harness="codex" />);
    expect(view.container.textContent).toBe("Continued in Codex from Plan the parser after turn 2");
  });

  it("reads the recorded harness when the source is gone", () => {
    const gone = { ...fork, source_harness: "pi" as const };
    const view = render(<LineageLine fork={gone} harness="claude" />);
    expect(view.container.textContent).toMatch(/^Continued in Claude Code from /);
  });

  it("says a fork in its source's harness was forked", () => {
    store.set({ threads: [stripTurns(source)], slots: { src: { loading: false, detail: source } } });
    const view = render(<LineageLine fork={fork} harness="claude" />);
    expect(view.container.textContent).toBe("Forked from Plan the parser after turn 2");
  });

  it("names a remote fork's source from its host's list", () => {
    remote.set({ threads: { box: { status: "ready", threads: [stripTurns(threadDetail("r0", 2, { title: "Plan there" }))] } } });
    const there = { ...fork, source_thread: "box:r0", source_harness: "claude" as const };
    const view = render(<LineageLine fork={there} harness="claude" />);
    expect(view.container.textContent).toMatch(/^Forked from Plan there /);
    remote.set({ threads: {} });
  });
});

describe("MovedFromLine", () => {
  afterEach(() => {
    cleanup();
    store.set({ threads: [], slots: {}, tabs: [], activeTab: null });
    remote.set({ hosts: null, threads: {}, doctors: {}, ask: null });
  });
  const origin = { host: "box", thread: "r7", title: "Fix the parser", turns: 2 };

  it("names the machine and the thread it came from, and opens it where this window reaches it", () => {
    remote.set({ hosts: [{ name: "box", destination: "me@box", ssh_options: [], remote_program: null }] });
    const view = render(<MovedFromLine origin={origin} />);
    expect(view.container.textContent).toBe("Continued from Fix the parser on box after turn 2");
    fireEvent.click(view.container.querySelector('[data-action="open-moved-from"]')!);
    expect(store.get().tabs.some((t) => t.thread_id === "box:r7")).toBe(true);
  });

  it("is words only for a machine this one cannot reach", () => {
    const view = render(<MovedFromLine origin={{ ...origin, host: "laptop" }} />);
    expect(view.container.textContent).toBe("Continued from Fix the parser on laptop after turn 2");
    expect(view.container.querySelector("button")).toBeNull();
  });
});

