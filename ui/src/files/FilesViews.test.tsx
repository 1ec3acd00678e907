// @vitest-environment jsdom
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { act, cleanup, fireEvent, render, waitFor } from "@testing-library/react";
import * as ipc from "../ipc";
import type { ChangesView } from "../ipc";
import { store } from "../state";
import { freshWindow } from "../testing/freshWindow";
import { threadDetail } from "../testing/threads";
import { stripTurns } from "../threads/cache";
import { ArchiveDialog } from "./ArchiveDialog";
import { ChangesDialog } from "./ChangesDialog";
import { CompareDialog } from "./CompareDialog";
import { applyFillEvent, applySetupEvent } from "./files";
import { FolderBar, FolderChip, forkFileItems } from "./FolderChip";
import { SetupDialog } from "./SetupDialog";
import { TrustDialog } from "./TrustDialog";

vi.mock("../ipc", () => import("../testing/ipcMock"));
const m = vi.mocked(ipc);

const source = stripTurns(threadDetail("src", 0, { title: "Source" }));
const fork = stripTurns(
  threadDetail("fork", 0, { title: "Fork", cwd: "/data/wt/fork", fork: { source_thread: "src", source_turn: "t1", boundary: "after", source_harness: null, source_turn_number: null } }),
);
const DIFF = "diff --git a/notes.txt b/notes.txt\n--- a/notes.txt\n+++ b/notes.txt\n@@ -1 +1 @@\n-turn 1\n+<img src=x onerror=alert(1)>\n";
const NEW_DIFF = "diff --git a/new.txt b/new.txt\nnew file mode 100644\n--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1 @@\n+fresh\n";
const changes: ChangesView = {
  from: "abcdef0123",
  to: "0123abcdef",
  files: [
    { path: "notes.txt", old_path: null, status: "modified", added_lines: 1, removed_lines: 1, binary: false, diff: DIFF },
    { path: "new.txt", old_path: null, status: "added", added_lines: 1, removed_lines: 0, binary: false, diff: NEW_DIFF },
  ],
};

beforeEach(() => {
  freshWindow();
  vi.clearAllMocks();
  store.set({ threads: [source, fork] });
});
afterEach(cleanup);

describe("Changes in this fork", () => {
  it("lists the files with status and counts, and shows the diff as text", async () => {
    m.changes.mockResolvedValue(changes);
    const view = render(<ChangesDialog threadId="fork" />);
    const file = await view.findByText("notes.txt");
    const row = file.closest("[data-file-path]") as HTMLElement;
    expect(row.dataset.status).toBe("modified");
    expect(row.textContent).toContain("+1");
    expect(row.textContent).toContain("−1");
    expect(m.changes).toHaveBeenCalledWith("fork", null);
    // The diff's markup is text: no element is made from it.
    expect(view.container.querySelector("img")).toBeNull();
    expect(view.container.querySelector("[data-diff-text]")?.textContent).toContain("+<img src=x onerror=alert(1)>");
    // Every file's diff, then only the chosen file's (each file's text comes from Rust as is).
    const text = () => view.container.querySelector("[data-diff-text]")?.textContent ?? "";
    expect(text()).toContain("+fresh");
    fireEvent.click(row);
    expect(text()).toContain("-turn 1");
    expect(text()).not.toContain("+fresh");
    fireEvent.click(view.getByText("new.txt"));
    expect(text()).toContain("+fresh");
    expect(text()).not.toContain("-turn 1");
    fireEvent.click(view.getByLabelText("Split", { exact: false }));
    expect(view.container.querySelector('[data-diff-view="split"]')).not.toBeNull();
    expect(view.container.querySelector("img")).toBeNull();
  });

  it("brings the changes back to the source and shows what was applied", async () => {
    m.changes.mockResolvedValue(changes);
    m.bringBack.mockResolvedValue(changes);
    const view = render(<ChangesDialog threadId="fork" />);
    const button = await view.findByText("Bring back to Source");
    fireEvent.click(button);
    await waitFor(() => expect(view.container.querySelector('[data-bring-back-result="applied"]')).not.toBeNull());
    expect(m.bringBack).toHaveBeenCalledWith("fork", "src");
    expect(view.container.querySelector('[data-applied-path="notes.txt"]')).not.toBeNull();
  });

  it("shows a conflict in words", async () => {
    m.changes.mockResolvedValue(changes);
    m.bringBack.mockRejectedValue(new ipc.IpcError("conflict", "notes.txt changed in Source since the fork point"));
    const view = render(<ChangesDialog threadId="fork" />);
    fireEvent.click(await view.findByText("Bring back to Source"));
    const result = await waitFor(() => {
      const el = view.container.querySelector('[data-bring-back-result="conflict"]');
      if (!el) throw new Error("no result");
      return el;
    });
    expect(result.textContent).toContain("notes.txt changed in Source since the fork point");
  });
});

describe("Compare", () => {
  it("offers the lineage's threads, then shows the shared turns once, the branches and the code difference", async () => {
    const view = render(<CompareDialog threadId="fork" other={null} />);
    expect(view.container.querySelector('[data-compare-with="src"]')).not.toBeNull();
    cleanup();
    m.changes.mockResolvedValue(changes);
    const b = threadDetail("src", 3, { title: "Source" });
    const a = threadDetail("fork", 1, { title: "Fork" });
    m.show.mockImplementation(async (id: string) => (id === "src" ? b : a));
    const compared = render(<CompareDialog threadId="fork" other="src" />);
    await waitFor(() => expect(compared.container.querySelector('[data-shared-turns="1"]')).not.toBeNull());
    // From the left one's files (the fork) to the right one's (the source).
    expect(m.changes).toHaveBeenCalledWith("src", "fork");
    expect(compared.container.querySelector('[data-compare-side="b"]')?.textContent).toContain("prompt 3");
    expect(compared.container.querySelector('[data-compare-side="a"]')?.textContent).toContain("No turns after");
    expect(compared.container.querySelector('[data-file-path="notes.txt"]')).not.toBeNull();
  });
});

describe("the folder in the header", () => {
  it("shows a worktree with its branch, and Changes", async () => {
    m.files.mockResolvedValue({ folder_kind: "worktree", in_git: true, checkpoints_note: null, folder_exists: true, branch: "forkhost/fork-1", base_commit: "c", checkpoints: [], preparing: null });
    const view = render(<FolderChip thread={fork} />);
    const chip = await view.findByText("worktree · forkhost/fork-1");
    expect(chip.dataset.folderKind).toBe("worktree");
    fireEvent.click(view.getByText("Changes"));
    expect(store.get().dialog).toEqual({ kind: "changes", threadId: "fork" });
  });

  it("says a folder outside git has no checkpoints (and offers no setup command)", async () => {
    m.files.mockResolvedValue({ folder_kind: "folder", in_git: false, checkpoints_note: null, folder_exists: true, branch: null, base_commit: null, checkpoints: [], preparing: null });
    const view = render(<FolderChip thread={source} />);
    await view.findByText("not a git repository (no checkpoints)");
    expect(view.container.querySelector('[data-action="setup-command"]')).toBeNull();
  });

  it("opens the repository's setup command from a folder in git", async () => {
    m.files.mockResolvedValue({ folder_kind: "folder", in_git: true, checkpoints_note: null, folder_exists: true, branch: null, base_commit: null, checkpoints: [], preparing: null });
    const view = render(<FolderChip thread={source} />);
    fireEvent.click(await view.findByText("Setup…"));
    expect(store.get().dialog).toEqual({ kind: "setup", threadId: "src" });
  });

  it("a folder that is gone is a clear state with Remove worktree and Archive", async () => {
    m.files.mockReset();
    store.set({ files: { fork: { folder_kind: "worktree", in_git: true, checkpoints_note: null, folder_exists: false, branch: "b", base_commit: null, checkpoints: [], preparing: null } } });
    const view = render(<FolderBar thread={fork} />);
    expect(view.container.textContent).toContain("Its folder is gone");
    m.removeWorktree.mockResolvedValue(undefined);
    fireEvent.click(view.getByText("Remove worktree"));
    await waitFor(() => expect(m.removeWorktree).toHaveBeenCalledWith("fork", null));
    expect(view.getByText("Archive")).toBeTruthy();
  });

  it("the fork menu offers both kinds of files only in git, marking the default", () => {
    expect(forkFileItems(false, "worktree", true, undefined, () => {})).toEqual([]);
    const chosen: string[] = [];
    const items = forkFileItems(true, "same_folder", true, undefined, (f) => chosen.push(f));
    expect(items.map((i) => i.label)).toEqual(["New worktree with the files as of this message", "Same folder (default)"]);
    items.forEach((i) => i.action?.());
    expect(chosen).toEqual(["worktree", "same_folder"]);
    // Without checkpoints "When I fork: a new worktree" falls back to the same folder.
    const labels = forkFileItems(true, "worktree", true, undefined, () => {}, false).map((i) => i.label);
    expect(labels).toEqual(["New worktree with the files as of this message", "Same folder (default)"]);
    expect(forkFileItems(true, "worktree", true, undefined, () => {})[0]?.label).toContain("(default)");
  });
});

describe("the archive dialog", () => {
  it("names exactly what removing would lose", () => {
    const loss = { exists: true, files: ["a.txt", "b.txt"], commits: 1, ignored: ["local.db"], other_threads: [{ id: "b", title: "Fork B" }] };
    store.set({ dialog: { kind: "archive", threadId: "fork", loss } });
    const view = render(<ArchiveDialog threadId="fork" loss={loss} />);
    expect(view.container.querySelector('[data-loss-ignored="local.db"]')).not.toBeNull();
    expect(view.container.querySelector('[data-loss-thread="b"]')?.textContent).toBe("Fork B");
    expect(view.container.querySelector('[data-loss-file="a.txt"]')).not.toBeNull();
    expect(view.container.querySelector('[data-loss-file="b.txt"]')).not.toBeNull();
    expect(view.container.querySelector('[data-loss-commits="1"]')).not.toBeNull();
    expect(view.getByText("Remove it, losing these")).toBeTruthy();
  });
});

describe("the trust dialog", () => {
  it("asks in words and answers Trust, Don't trust or Cancel", () => {
    const answer = vi.fn();
    const ask = { view: { root: "/p", config: [".pi"], trusted: null, changed: [] }, answer };
    const view = render(<TrustDialog ask={ask} />);
    expect(view.container.querySelector("[data-trust-question]")?.textContent).toBe(
      "/p has project agent config (.pi). Its hooks, MCP servers and extensions run commands when an agent starts there. Trust this folder?",
    );
    fireEvent.click(view.getByText("Don't trust"));
    fireEvent.click(view.getByText("Trust"));
    fireEvent.click(view.getByText("Cancel"));
    expect(answer.mock.calls).toEqual([[false], [true], [null]]);
  });
});

describe("the worktree's setup command", () => {
  it("shows its output as text while it runs, then how it ended", () => {
    expect(applySetupEvent({ type: "turn_started", thread_id: "fork" })).toBe(false);
    expect(applySetupEvent({ type: "worktree_setup", thread_id: "fork", output: "npm install\n" })).toBe(true);
    applySetupEvent({ type: "worktree_setup", thread_id: "fork", output: "<b>added 3</b>\n" });
    const view = render(<FolderBar thread={fork} />);
    const running = view.container.querySelector('[data-worktree-setup="running"]');
    expect(running?.textContent).toContain("npm install\n<b>added 3</b>");
    expect(view.container.querySelector("b")).toBeNull();
    act(() => {
      applySetupEvent({ type: "worktree_setup_ended", thread_id: "fork", success: false, message: "the setup command exit status: 1" });
    });
    expect(view.container.querySelector('[data-worktree-setup="failed"]')?.textContent).toContain("exit status: 1");
  });
});

describe("a fork's worktree filled after the fork opened", () => {
  it("shows how far the files are, then goes away when they are there", async () => {
    m.files.mockResolvedValue({ folder_kind: "worktree", in_git: true, checkpoints_note: null, folder_exists: true, branch: "b", base_commit: "c", checkpoints: [], preparing: null });
    expect(applyFillEvent({ type: "turn_started", thread_id: "fork" })).toBe(false);
    expect(applyFillEvent({ type: "files_progress", thread_id: "fork", done: 0, total: 0 })).toBe(true);
    const view = render(<FolderBar thread={fork} />);
    expect(view.container.querySelector("[data-files-preparing]")?.textContent).toContain("Preparing files…");
    act(() => {
      applyFillEvent({ type: "files_progress", thread_id: "fork", done: 12340, total: 50000 });
    });
    const bar = view.container.querySelector("[data-files-preparing]");
    expect(bar?.textContent).toContain("Preparing files 12,340 / 50,000");
    expect(bar?.textContent).toContain("goes out when the files are there");
    expect(bar?.querySelector("progress")?.getAttribute("value")).toBe("12340");
    act(() => {
      applyFillEvent({ type: "files_prepared", thread_id: "fork", error: null });
    });
    expect(view.container.querySelector("[data-files-preparing]")).toBeNull();
    await waitFor(() => expect(m.files).toHaveBeenCalledWith("fork"));
    expect(store.get().toasts).toEqual([]);
  });

  it("says why when the files could not be written", () => {
    m.files.mockResolvedValue({ folder_kind: "worktree", in_git: true, checkpoints_note: null, folder_exists: false, branch: "b", base_commit: "c", checkpoints: [], preparing: null });
    applyFillEvent({ type: "files_progress", thread_id: "fork", done: 3, total: 9 });
    applyFillEvent({ type: "files_prepared", thread_id: "fork", error: "The fork's files could not be written (disk full)." });
    expect(store.get().preparing.fork).toBeUndefined();
    expect(store.get().toasts.map((t) => t.message)).toEqual(["The fork's files could not be written (disk full)."]);
  });

  it("a read answered before the fill ended does not bring the bar back", async () => {
    // The window asks for the thread's files while its fill runs; the answer (still preparing)
    // comes after the fill's end event, and the read made after that event says it is done.
    let answer: (v: ipc.FilesView) => void = () => {};
    const worktree: Omit<ipc.FilesView, "preparing"> = { folder_kind: "worktree", in_git: true, checkpoints_note: null, folder_exists: true, branch: "b", base_commit: "c", checkpoints: [] };
    m.files.mockImplementationOnce(() => new Promise((resolve) => (answer = resolve)));
    m.files.mockResolvedValueOnce({ ...worktree, preparing: null });
    const view = render(<FolderBar thread={fork} />);
    render(<FolderChip thread={fork} />);
    await waitFor(() => expect(m.files).toHaveBeenCalledTimes(1));
    act(() => {
      applyFillEvent({ type: "files_prepared", thread_id: "fork", error: null });
    });
    await waitFor(() => expect(m.files).toHaveBeenCalledTimes(2));
    await act(async () => {
      answer({ ...worktree, preparing: { done: 40, total: 5000 } });
      await Promise.resolve();
    });
    await waitFor(() => expect(store.get().files.fork?.preparing).toBeNull());
    expect(store.get().preparing.fork).toBeUndefined();
    expect(view.container.querySelector("[data-files-preparing]")).toBeNull();
  });

  it("seeds the bar from the files a new window reads", async () => {
    m.files.mockResolvedValue({ folder_kind: "worktree", in_git: true, checkpoints_note: null, folder_exists: true, branch: "b", base_commit: "c", checkpoints: [], preparing: { done: 5, total: 10 } });
    const view = render(<FolderBar thread={fork} />);
    render(<FolderChip thread={fork} />);
    await waitFor(() => expect(view.container.querySelector("[data-files-preparing]")?.textContent).toContain("Preparing files 5 / 10"));
  });
});

describe("the setup command of new worktrees", () => {
  it("shows the repository's command, and saves the edited one", async () => {
    m.setupCommand.mockResolvedValue("npm ci");
    m.setSetupCommand.mockResolvedValue("npm ci && make");
    store.set({ dialog: { kind: "setup", threadId: "fork" } });
    const view = render(<SetupDialog threadId="fork" />);
    const input = view.container.querySelector<HTMLInputElement>('[data-field="setup-command"]');
    await waitFor(() => expect(input?.value).toBe("npm ci"));
    expect(m.setupCommand).toHaveBeenCalledWith("/data/wt/fork");
    fireEvent.change(input as HTMLInputElement, { target: { value: "npm ci && make" } });
    fireEvent.click(view.getByText("Save"));
    await waitFor(() => expect(m.setSetupCommand).toHaveBeenCalledWith("/data/wt/fork", "npm ci && make"));
    await waitFor(() => expect(store.get().dialog).toBeNull());
  });

  it("clears it, and keeps the dialog with the error in words when the Host refuses", async () => {
    m.setupCommand.mockResolvedValue(null);
    m.setSetupCommand.mockRejectedValueOnce(new ipc.IpcError("unsupported", "unsupported: /x is not in a git repository"));
    store.set({ dialog: { kind: "setup", threadId: "src" } });
    const view = render(<SetupDialog threadId="src" />);
    await waitFor(() => expect(view.getByText("No setup command").hasAttribute("disabled")).toBe(false));
    fireEvent.click(view.getByText("No setup command"));
    await view.findByRole("alert");
    expect(m.setSetupCommand).toHaveBeenCalledWith(source.cwd, null);
    expect(view.getByRole("alert").textContent).toContain("not in a git repository");
    expect(store.get().dialog).toEqual({ kind: "setup", threadId: "src" });
  });
});
