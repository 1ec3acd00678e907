import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import * as ipc from "../ipc";
import { IpcError } from "../ipc";
import type { HarnessReport } from "../bindings/HarnessReport";
import { changedHarnessPaths, checkHarnessPaths, SettingsDialog } from "./SettingsDialog";
import { resetStore, store } from "../state";
import { setupFields } from "../testing/harnessReport";

vi.mock("../ipc", async () => {
  const { IpcError } = await vi.importActual<typeof import("../ipc")>("../ipc");
  return {
    IpcError,
    inApp: () => true,
    checkHarnessPath: vi.fn(),
    saveSettings: vi.fn(() => Promise.resolve()),
    pickFolder: vi.fn(),
    // The other Settings sections ask once on mount; they stay loading here.
    cliToolStatus: vi.fn(() => new Promise(() => {})),
    trustedFolders: vi.fn(() => new Promise(() => {})),
    updateCheck: vi.fn(() => Promise.resolve(null)),
  };
});

const m = vi.mocked(ipc);

function report(over: Partial<HarnessReport>): HarnessReport {
  return {
    name: "claude",
    path: null,
    version: null,
    capabilities: null,
    error: null,
    found_by: "override",
    notes: [],
    support: null,
    permission_modes: [],
    sandboxes: [],
    ...setupFields("claude"),
    ...over,
  };
}

describe("harness paths in Settings", () => {
  it("checks only the paths that were set or changed", () => {
    expect(
      changedHarnessPaths(
        { claude: "/opt/claude", codex: "C:\\npm\\codex.cmd", pi: null, opencode: null },
        { claude: " /opt/claude ", codex: "C:\\npm\\codex.exe", pi: "  ", opencode: null },
      ),
    ).toEqual([{ name: "codex", path: "C:\\npm\\codex.exe" }]);
    expect(changedHarnessPaths({ claude: "/a", codex: null, pi: null, opencode: null }, { claude: null, codex: null, pi: null, opencode: null })).toEqual(
      [],
    );
  });

  it("says in words why a path was refused", async () => {
    const check = vi.fn(async (harness: string, path: string) => {
      if (harness === "claude") return report({ path, version: "2.1.332" });
      if (harness === "codex") throw new IpcError("invalid_input", `${path} is Claude Code, not Codex`);
      throw new IpcError("harness_not_found", `found \`pi\` at ${path} but it is a shell script; on Windows use pi.cmd`);
    });
    const results = await checkHarnessPaths(
      [
        { name: "claude", path: "C:\\npm\\claude.cmd" },
        { name: "codex", path: "/usr/local/bin/claude" },
        { name: "pi", path: "C:\\npm\\pi" },
      ],
      check,
    );
    expect(results.claude).toEqual({ state: "ok", report: report({ path: "C:\\npm\\claude.cmd", version: "2.1.332" }) });
    expect(results.codex).toEqual({
      state: "error",
      code: "invalid_input",
      message: "/usr/local/bin/claude is Claude Code, not Codex",
    });
    expect(results.pi).toMatchObject({ state: "error", code: "harness_not_found" });
    expect(check).toHaveBeenCalledTimes(3);
  });
});

describe("the Settings dialog", () => {
  beforeEach(() => {
    resetStore();
    m.checkHarnessPath.mockReset();
    m.saveSettings.mockClear();
  });
  afterEach(cleanup);

  const save = () => document.querySelector<HTMLButtonElement>('button[data-action="save-settings"]')!;
  const typePath = (name: string, value: string) =>
    fireEvent.change(document.querySelector(`input[data-field="path-${name}"]`)!, { target: { value } });

  it("shows what a new harness path is and saves it only once confirmed", async () => {
    m.checkHarnessPath.mockResolvedValue(report({ path: "/opt/claude/bin/claude", version: "2.1.332" }));
    render(<SettingsDialog />);
    typePath("claude", "/opt/claude/bin/claude");
    fireEvent.click(save());
    await screen.findByText(/Press Save again to confirm/);
    expect(m.checkHarnessPath).toHaveBeenCalledWith("claude", "/opt/claude/bin/claude");
    expect(m.saveSettings).not.toHaveBeenCalled();
    expect(document.querySelector("[data-harness-confirm]")!.textContent).toContain(
      "/opt/claude/bin/claude (2.1.332) for Claude Code",
    );
    expect(save().textContent).toBe("Confirm and save");
    fireEvent.click(save());
    await waitFor(() => expect(m.saveSettings).toHaveBeenCalledTimes(1));
    expect(m.saveSettings.mock.calls[0]?.[0].harness_paths.claude).toBe("/opt/claude/bin/claude");
  });

  it("refuses a path the check rejects, in words", async () => {
    m.checkHarnessPath.mockRejectedValue(
      new IpcError("harness_not_found", "found `pi` at C:\\npm\\pi but it is a shell script; on Windows use pi.cmd"),
    );
    render(<SettingsDialog />);
    typePath("pi", "C:\\npm\\pi");
    fireEvent.click(save());
    const error = await screen.findByRole("alert");
    expect(error.textContent).toContain("on Windows use pi.cmd");
    expect(error.dataset.code).toBe("harness_not_found");
    await screen.findByText(/Nothing was saved/);
    fireEvent.click(save());
    await waitFor(() => expect(m.checkHarnessPath).toHaveBeenCalledTimes(2));
    expect(m.saveSettings).not.toHaveBeenCalled();
    // Cleared, the harness is auto-detected again and Settings save at once.
    typePath("pi", "");
    fireEvent.click(save());
    await waitFor(() => expect(m.saveSettings).toHaveBeenCalledTimes(1));
  });

  it("saves the mode new threads start in, per harness", async () => {
    store.set({
      doctor: [
        report({ name: "claude", path: "/c", version: "2", permission_modes: ["default", "acceptEdits"] }),
        report({
          name: "codex",
          path: "/x",
          version: "1",
          permission_modes: ["untrusted", "never"],
          sandboxes: ["read-only", "danger-full-access"],
        }),
        report({ name: "pi", path: "/p", version: "1" }),
      ],
    });
    render(<SettingsDialog />);
    const row = (name: string) => document.querySelector(`[data-default-mode="${name}"]`)!;
    expect(row("pi").textContent).toContain("Pi runs its tools without asking");
    expect(row("pi").querySelector("select")).toBeNull();
    fireEvent.change(row("claude").querySelector('select[data-field="mode"]')!, { target: { value: "acceptEdits" } });
    fireEvent.change(row("codex").querySelector('select[data-field="sandbox"]')!, { target: { value: "read-only" } });
    expect(row("claude").textContent).toContain("edits files without asking, asks before commands");
    fireEvent.click(save());
    await waitFor(() => expect(m.saveSettings).toHaveBeenCalledTimes(1));
    expect(m.saveSettings.mock.calls[0]?.[0].default_modes).toEqual({
      claude: "acceptEdits",
      codex_policy: null,
      codex_sandbox: "read-only",
    });
  });

  it("saves what a fork's files are and after how many days archived threads' checkpoints go", async () => {
    store.set({ doctor: [report({ name: "pi", path: "/p", version: "1" })] });
    render(<SettingsDialog />);
    const worktree = document.querySelector<HTMLInputElement>('input[data-setting="fork-files-worktree"]')!;
    expect(worktree.checked).toBe(true);
    fireEvent.click(document.querySelector('input[data-setting="fork-files-same_folder"]')!);
    fireEvent.change(document.querySelector('input[data-setting="prune-checkpoints-days"]')!, { target: { value: "7" } });
    fireEvent.click(save());
    await waitFor(() => expect(m.saveSettings).toHaveBeenCalledTimes(1));
    expect(m.saveSettings.mock.calls[0]?.[0]).toMatchObject({ fork_files: "same_folder", prune_checkpoints_days: 7 });
  });

  it("saves how many agents a race runs at once, within 0 (one per core) and 64", async () => {
    store.set({ doctor: [report({ name: "pi", path: "/p", version: "1" })] });
    render(<SettingsDialog />);
    const agents = document.querySelector<HTMLInputElement>('input[data-setting="max-agents"]')!;
    expect(agents.value).toBe("0");
    fireEvent.change(agents, { target: { value: "500" } });
    expect(agents.value).toBe("64");
    fireEvent.change(agents, { target: { value: "3" } });
    fireEvent.click(save());
    await waitFor(() => expect(m.saveSettings).toHaveBeenCalledTimes(1));
    expect(m.saveSettings.mock.calls[0]?.[0]).toMatchObject({ max_agents: 3 });
  });
});
