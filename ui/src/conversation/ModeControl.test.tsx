// @vitest-environment jsdom
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { act, cleanup, fireEvent, render, waitFor } from "@testing-library/react";
import * as ipc from "../ipc";
import type { ThreadView } from "../bindings/ThreadView";
import { IpcError } from "../ipc";
import { store } from "../state";
import { freshWindow } from "../testing/freshWindow";
import { threadDetail } from "../testing/threads";
import { stripTurns } from "../threads/cache";
import { ModeControl } from "./ModeControl";
import { setupFields } from "../testing/harnessReport";

vi.mock("../ipc", () => import("../testing/ipcMock"));
const m = vi.mocked(ipc);

const codex = {
  name: "codex" as const,
  path: "/bin/codex",
  version: "0.1",
  capabilities: null,
  error: null,
  found_by: "path" as const,
  notes: [],
  support: null,
  permission_modes: ["untrusted", "on-request", "never"],
  sandboxes: ["read-only", "workspace-write", "danger-full-access"],
  ...setupFields("codex"),
};

function thread(): ThreadView {
  return { ...stripTurns(threadDetail("t1")), harness: "codex", permissions: { mode: "never", sandbox: null } };
}

beforeEach(() => {
  freshWindow();
  m.setMode.mockReset();
  store.set({ doctor: [codex], threads: [thread()] });
});
afterEach(cleanup);

describe("the mode in the conversation header", () => {
  it("shows the thread's mode and changes it", async () => {
    const changed = { ...thread(), permissions: { mode: "untrusted", sandbox: "danger-full-access" } };
    m.setMode.mockResolvedValue(changed);
    const { container } = render(<ModeControl thread={thread()} />);
    const policy = container.querySelector<HTMLSelectElement>('select[data-field="mode"]')!;
    expect(policy.value).toBe("never");
    fireEvent.change(container.querySelector('select[data-field="sandbox"]')!, {
      target: { value: "danger-full-access" },
    });
    expect(m.setMode).toHaveBeenCalledWith("t1", "never", "danger-full-access");
    await waitFor(() => expect(store.get().threads[0]?.permissions.mode).toBe("untrusted"));
  });

  it("names the sandbox a thread runs in by default, and keeps it a default (issue 39)", () => {
    const defaulted = { ...thread(), permissions: { mode: "never", sandbox: "read-only", sandbox_default: true } };
    const { container } = render(<ModeControl thread={defaulted} />);
    const box = container.querySelector<HTMLElement>("[data-mode-control]")!;
    expect(box.title).toContain("Sandbox: read-only, config.toml's default");
    expect(box.dataset.sandbox).toBe("");
    fireEvent.change(container.querySelector('select[data-field="mode"]')!, { target: { value: "untrusted" } });
    expect(m.setMode).toHaveBeenCalledWith("t1", "untrusted", null);
  });

  it("says in words why a running turn refused the change, and keeps the stored mode", async () => {
    m.setMode.mockRejectedValue(new IpcError("busy", "busy: a turn is running in thread t1; change its mode when it ends"));
    const { container } = render(<ModeControl thread={thread()} />);
    const policy = container.querySelector<HTMLSelectElement>('select[data-field="mode"]')!;
    await act(async () => {
      fireEvent.change(policy, { target: { value: "untrusted" } });
    });
    await waitFor(() => expect(store.get().toasts).toHaveLength(1));
    const toast = store.get().toasts[0]!;
    expect(toast.kind).toBe("error");
    expect(`${toast.title} ${toast.message}`).toContain("A turn is running");
    expect(policy.value).toBe("never");
  });

  it("says Pi runs its tools without asking", () => {
    store.set({ doctor: [{ ...codex, name: "pi", permission_modes: [], sandboxes: [] }] });
    const { container } = render(<ModeControl thread={{ ...thread(), harness: "pi", permissions: { mode: null, sandbox: null } }} />);
    expect(container.querySelector("select")).toBeNull();
    expect(container.textContent).toContain("Pi runs its tools without asking");
  });
});
