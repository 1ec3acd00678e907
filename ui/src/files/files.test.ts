import { beforeEach, describe, expect, it, vi } from "vitest";
import * as ipc from "../ipc";
import { store } from "../state";
import { freshWindow } from "../testing/freshWindow";
import { threadDetail } from "../testing/threads";
import { stripTurns } from "../threads/cache";
import { archiveThread, archiveWithWorktree, ensureTrust, folderWords, lossWords, trustFromRefusal, trustQuestion } from "./files";

vi.mock("../ipc", () => import("../testing/ipcMock"));
const m = vi.mocked(ipc);

const files = (over: Partial<ipc.FilesView> = {}): ipc.FilesView => ({
  folder_kind: "folder",
  in_git: true,
  checkpoints_note: null,
  folder_exists: true,
  branch: null,
  base_commit: null,
  checkpoints: [],
  preparing: null,
  ...over,
});

beforeEach(() => {
  freshWindow();
  vi.clearAllMocks();
  m.threads.mockResolvedValue([]);
  m.archive.mockResolvedValue(stripTurns(threadDetail("f")));
});

describe("the folder's words", () => {
  it("names a worktree's branch, a folder outside git, a folder that is gone", () => {
    expect(folderWords(files({ folder_kind: "worktree", branch: "forkhost/x-1" })).label).toBe("worktree · forkhost/x-1");
    expect(folderWords(files({ in_git: false })).label).toBe("not a git repository (no checkpoints)");
    expect(folderWords(files({ folder_exists: false, folder_kind: "worktree" })).kind).toBe("gone");
    expect(folderWords(files({ checkpoints: [{ turn: 1, edge: "end", commit: "c" }] })).label).toBe("git · 1 checkpoint");
    const home = folderWords(files({ checkpoints_note: "no file checkpoints: the repository /home/me is your home folder" }));
    expect(home.label).toBe("git · no checkpoints");
    expect(home.title).toContain("home folder");
  });
});

describe("folder trust", () => {
  const undecided = { root: "/p", config: [".claude", ".mcp.json"], trusted: null, changed: [] };

  it("asks only when there is config and no decision, and records the answer", async () => {
    m.folderTrust.mockResolvedValueOnce({ root: "/p", config: [], trusted: null, changed: [] });
    const ask = vi.fn();
    expect(await ensureTrust("/p", ask)).toBe(true);
    expect(ask).not.toHaveBeenCalled();

    m.folderTrust.mockResolvedValueOnce({ ...undecided, trusted: false });
    expect(await ensureTrust("/p", ask)).toBe(true);
    expect(ask).not.toHaveBeenCalled();

    m.folderTrust.mockResolvedValueOnce({ ...undecided, digest: "d1" });
    m.setFolderTrust.mockResolvedValueOnce({ ...undecided, trusted: true });
    expect(await ensureTrust("/p", async () => true)).toBe(true);
    // The answer names the config it was given for (L-4).
    expect(m.setFolderTrust).toHaveBeenCalledWith("/p", true, "d1", null);

    // Config new since a trust is asked about again.
    m.folderTrust.mockResolvedValueOnce({ ...undecided, trusted: true, changed: [".mcp.json"] });
    const again = vi.fn(async () => false);
    expect(await ensureTrust("/p", again)).toBe(true);
    expect(again).toHaveBeenCalled();
    expect(m.setFolderTrust).toHaveBeenLastCalledWith("/p", false, undefined, null);
  });

  it("cancelled: nothing is recorded and the caller stops", async () => {
    m.folderTrust.mockResolvedValueOnce(undecided);
    expect(await ensureTrust("/p", async () => null)).toBe(false);
    expect(m.setFolderTrust).not.toHaveBeenCalled();
  });

  it("says what was found and what it does, in words", () => {
    expect(trustQuestion(undecided)).toBe(
      "/p has project agent config (.claude, .mcp.json). Its hooks, MCP servers and extensions run commands when an agent starts there. Trust this folder?",
    );
    const grown = { ...undecided, trusted: true, changed: [".mcp.json"] };
    expect(trustQuestion(grown)).toContain("New or changed since you trusted it: .mcp.json.");
  });

  it("takes the folder an import's refusal carries into the question", () => {
    const view = { root: "/home/me/p (copy)", config: [".pi", ".codex"], trusted: null, changed: [] };
    const err = new ipc.IpcError("invalid_input", "invalid input: … has project agent config …", view);
    expect(trustFromRefusal(err)).toEqual(view);
    // Words alone are not a trust refusal.
    const words = "/home/me/p has project agent config (.pi) that can run commands; decide whether to trust it first";
    expect(trustFromRefusal(new ipc.IpcError("invalid_input", words))).toBeNull();
    expect(trustFromRefusal(new Error("x"))).toBeNull();
  });
});

describe("archiving a thread with a worktree", () => {
  const loss = { exists: true, files: ["notes.txt"], commits: 2, ignored: [], other_threads: [] };

  it("asks first, naming the loss, and removes nothing", async () => {
    m.files.mockResolvedValue(files({ folder_kind: "worktree", branch: "forkhost/f" }));
    m.worktreeLoss.mockResolvedValue(loss);
    await archiveThread("f");
    expect(store.get().dialog).toEqual({ kind: "archive", threadId: "f", loss });
    expect(m.archive).not.toHaveBeenCalled();
    expect(m.removeWorktree).not.toHaveBeenCalled();
    expect(lossWords(loss)).toBe("1 file with uncommitted changes and 2 commits no other branch has");
    const ignoredOnly = { exists: true, files: [], commits: 0, ignored: ["local.db"], other_threads: [] };
    expect(lossWords(ignoredOnly)).toBe("1 ignored file made there");
    const shared = { ...ignoredOnly, other_threads: [{ id: "b", title: "B" }] };
    expect(lossWords(shared)).toBe("1 ignored file made there and the folder of 1 other thread");
  });

  it("a thread without a worktree is archived at once", async () => {
    m.files.mockResolvedValue(files());
    await archiveThread("f");
    expect(m.archive).toHaveBeenCalledWith("f", true);
    expect(m.worktreeLoss).not.toHaveBeenCalled();
  });

  it("removing passes back exactly the loss the user saw; nothing to lose passes none", async () => {
    m.removeWorktree.mockResolvedValue(undefined);
    expect(await archiveWithWorktree("f", true, loss)).toBeNull();
    expect(m.removeWorktree).toHaveBeenCalledWith("f", loss);
    expect(await archiveWithWorktree("f", true, { exists: true, files: [], commits: 0, ignored: [], other_threads: [] })).toBeNull();
    expect(m.removeWorktree).toHaveBeenLastCalledWith("f", null);
  });

  it("keeping it archives only; a refused removal says the worktree was kept", async () => {
    expect(await archiveWithWorktree("f", false, loss)).toBeNull();
    expect(m.removeWorktree).not.toHaveBeenCalled();
    m.removeWorktree.mockRejectedValue(new ipc.IpcError("conflict", "new.txt changed since"));
    expect(await archiveWithWorktree("f", true, loss)).toContain("the worktree was kept");
  });
});
