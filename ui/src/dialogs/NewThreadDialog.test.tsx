// @vitest-environment jsdom
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { cleanup, fireEvent, render, waitFor } from "@testing-library/react";
import type { HarnessKind } from "../bindings/HarnessKind";
import * as ipc from "../ipc";
import type { HarnessReport } from "../bindings/HarnessReport";
import { store } from "../state";
import { freshWindow } from "../testing/freshWindow";
import { threadDetail } from "../testing/threads";
import { NewThreadDialog } from "./NewThreadDialog";
import { harnessReport, missingReport, setupFields } from "../testing/harnessReport";
import { remote } from "../remote/remote";

vi.mock("../ipc", () => import("../testing/ipcMock"));
const m = vi.mocked(ipc);

function report(name: HarnessKind, permission_modes: string[], sandboxes: string[] = []): HarnessReport {
  return {
    name,
    path: `/bin/${name}`,
    version: "1",
    capabilities: null,
    error: null,
    found_by: "path",
    notes: [],
    support: null,
    permission_modes,
    sandboxes,
    ...setupFields(name),
  };
}

beforeEach(() => {
  freshWindow();
  localStorage.clear();
  localStorage.setItem("forkhost.lastFolder", "/work");
  m.create.mockResolvedValue(threadDetail("t1"));
  m.show.mockResolvedValue(threadDetail("t1"));
  store.set({
    doctor: [
      report("claude", ["default", "acceptEdits", "bypassPermissions"]),
      report("codex", ["untrusted", "on-request", "never"], ["read-only", "workspace-write", "danger-full-access"]),
      report("pi", []),
    ],
    settings: {
      ...store.get().settings,
      default_modes: { claude: "acceptEdits", codex_policy: null, codex_sandbox: "read-only" },
    },
  });
});
afterEach(cleanup);

function pick(container: HTMLElement, harness: string) {
  fireEvent.click(container.querySelector(`input[data-harness="${harness}"]`)!);
}

describe("New thread's permission mode", () => {
  it("starts at Settings' default for the harness and sends the choice", async () => {
    const { container } = render(<NewThreadDialog />);
    pick(container, "claude");
    const mode = container.querySelector<HTMLSelectElement>('select[data-field="mode"]')!;
    expect(mode.value).toBe("acceptEdits");
    fireEvent.click(container.querySelector('[data-action="create-thread"]')!);
    await waitFor(() => expect(m.create).toHaveBeenCalled());
    expect(m.create.mock.calls[0]![0]).toMatchObject({ harness: "claude", cwd: "/work", mode: "acceptEdits", sandbox: null, host: null });
  });

  it("takes Codex's policy and sandbox as two choices", async () => {
    const { container } = render(<NewThreadDialog />);
    pick(container, "codex");
    expect(container.querySelector<HTMLSelectElement>('select[data-field="sandbox"]')!.value).toBe("read-only");
    fireEvent.change(container.querySelector('select[data-field="mode"]')!, { target: { value: "untrusted" } });
    fireEvent.change(container.querySelector('select[data-field="sandbox"]')!, {
      target: { value: "danger-full-access" },
    });
    fireEvent.click(container.querySelector('[data-action="create-thread"]')!);
    await waitFor(() => expect(m.create).toHaveBeenCalled());
    expect(m.create.mock.calls[0]![0]).toMatchObject({ harness: "codex", mode: "untrusted", sandbox: "danger-full-access" });
  });

  it("has no control for Pi, only the sentence", async () => {
    const { container } = render(<NewThreadDialog />);
    pick(container, "pi");
    expect(container.querySelector('[data-mode-picker="pi"]')?.textContent).toBe("Pi runs its tools without asking");
    expect(container.querySelector("select")).toBeNull();
    fireEvent.click(container.querySelector('[data-action="create-thread"]')!);
    await waitFor(() => expect(m.create).toHaveBeenCalled());
    expect(m.create.mock.calls[0]![0]).toMatchObject({ harness: "pi", mode: null, sandbox: null });
  });
});

describe("New thread on another machine", () => {
  it("offers the added hosts and starts there, in a folder typed for that machine", async () => {
    remote.set({ hosts: [{ name: "box", destination: "me@box", ssh_options: [], remote_program: null }], threads: {}, ask: null });
    m.create.mockResolvedValueOnce(threadDetail("box:r1"));
    m.hostThreads.mockResolvedValue([]);
    m.hostDoctor.mockResolvedValue([]);
    localStorage.setItem("forkhost.lastFolder.box", "~/src/app");
    const { container } = render(<NewThreadDialog />);
    expect(container.querySelector('input[data-machine="here"]')).not.toBeNull();
    fireEvent.click(container.querySelector('input[data-machine="box"]')!);
    const folder = container.querySelector<HTMLInputElement>('input[data-field="cwd"]')!;
    expect(folder.value).toBe("~/src/app");
    expect(folder.placeholder).toContain("on box");
    expect(container.textContent).not.toContain("Browse");
    pick(container, "pi");
    const before = store.get().threads.length;
    fireEvent.click(container.querySelector('[data-action="create-thread"]')!);
    await waitFor(() => expect(m.create).toHaveBeenCalled());
    expect(m.create.mock.calls[0]![0]).toMatchObject({ harness: "pi", cwd: "~/src/app", host: "box" });
    await waitFor(() => expect(m.hostThreads).toHaveBeenCalledWith("box"));
    expect(store.get().threads.length).toBe(before);
    remote.set({ hosts: null, threads: {}, doctors: {}, ask: null });
  });

  it("greys out the agents that machine lacks, in its own words, and the versions are its own", async () => {
    remote.set({ hosts: [{ name: "box", destination: "me@box", ssh_options: [], remote_program: null }], threads: {}, doctors: {}, ask: null });
    m.hostDoctor.mockResolvedValue([
      missingReport("claude"),
      harnessReport("codex", { version: "0.170.0" }),
      harnessReport("pi", { version: "0.74.0" }),
    ]);
    const { container } = render(<NewThreadDialog />);
    const input = (h: string) => container.querySelector<HTMLInputElement>(`input[data-harness="${h}"]`)!;
    // This machine has all three.
    expect(input("claude").disabled).toBe(false);
    fireEvent.click(container.querySelector('input[data-machine="box"]')!);
    await waitFor(() => expect(input("claude").disabled).toBe(true));
    expect(m.hostDoctor).toHaveBeenCalledWith("box");
    expect(input("codex").disabled).toBe(false);
    expect(container.querySelector('[data-harness-why="claude"]')!.textContent).toContain(
      "npm install -g @anthropic-ai/claude-code",
    );
    expect(container.querySelector('[data-action="open-first-run"]')).toBeNull();
    expect(input("codex").closest("label")!.textContent).toContain("0.170.0");
    // Back on this machine: its own reports again.
    fireEvent.click(container.querySelector('input[data-machine="here"]')!);
    expect(input("claude").disabled).toBe(false);
    remote.set({ hosts: null, threads: {}, doctors: {}, ask: null });
  });
});

describe("New thread for a newcomer", () => {
  it("preselects the only usable harness and says why the others can't start", () => {
    localStorage.setItem("forkhost.lastHarness", "claude");
    store.set({ doctor: [missingReport("claude"), harnessReport("codex", { sign_in: "signed_out" }), harnessReport("pi")] });
    const { container } = render(<NewThreadDialog />);
    expect(container.querySelector<HTMLInputElement>('input[data-harness="pi"]')!.checked).toBe(true);
    expect(container.querySelector('[data-harness-why="claude"]')?.textContent).toContain("Claude Code is not installed");
    expect(container.querySelector('[data-harness-why="codex"]')?.textContent).toContain("Run codex login in a terminal");
    expect(container.querySelector<HTMLButtonElement>('[data-action="create-thread"]')!.disabled).toBe(false);
  });

  it("shows the first-run list instead of a form when no harness can start", () => {
    store.set({ doctor: [missingReport("claude"), missingReport("codex"), missingReport("pi")] });
    const { container } = render(<NewThreadDialog />);
    expect(container.querySelector("[data-first-run-list]")).not.toBeNull();
    expect(container.querySelector('[data-action="create-thread"]')).toBeNull();
  });

  it("says what Start thread is waiting for", () => {
    localStorage.setItem("forkhost.lastFolder", "");
    const { container } = render(<NewThreadDialog />);
    const start = container.querySelector<HTMLButtonElement>('[data-action="create-thread"]')!;
    expect(start.disabled).toBe(true);
    expect(container.querySelector("[data-start-blocker]")?.textContent).toBe("Choose a project folder");
    fireEvent.change(container.querySelector('input[data-field="cwd"]')!, { target: { value: "/work" } });
    expect(container.querySelector("[data-start-blocker]")).toBeNull();
    expect(start.disabled).toBe(false);
  });
});
