import { beforeEach, describe, expect, it, vi } from "vitest";
import * as ipc from "../ipc";
import { store } from "../state";
import { freshWindow } from "../testing/freshWindow";
import { threadDetail } from "../testing/threads";
import { stripTurns } from "./cache";
import { archiveThread, createThread, importAndOpen, loadDiscovered, renameThread } from "./threadActions";

vi.mock("../ipc", () => import("../testing/ipcMock"));
const m = vi.mocked(ipc);

beforeEach(() => {
  freshWindow();
  localStorage.clear();
  m.threads.mockResolvedValue([]);
  m.discover.mockResolvedValue([]);
  m.startTurn.mockResolvedValue(undefined);
});

const args = { harness: "codex" as const, cwd: "/home/me/other", title: "  ", prompt: "" };

describe("creating a thread", () => {
  it("in a folder with undecided agent config asks first: Cancel creates nothing, Trust records it and creates", async () => {
    m.folderTrust.mockResolvedValue({ root: "/home/me/other", config: [".pi"], trusted: null, changed: [] });
    const cancelled = createThread(args);
    await vi.waitFor(() => expect(store.get().trustAsk).not.toBeNull());
    store.get().trustAsk?.answer(null);
    expect(await cancelled).toBe(false);
    expect(m.create).not.toHaveBeenCalled();
    expect(m.setFolderTrust).not.toHaveBeenCalled();

    m.create.mockResolvedValue(threadDetail("new", 0));
    m.setFolderTrust.mockResolvedValue({ root: "/home/me/other", config: [".pi"], trusted: true, changed: [] });
    const trusted = createThread(args);
    await vi.waitFor(() => expect(store.get().trustAsk).not.toBeNull());
    store.get().trustAsk?.answer(true);
    expect(await trusted).toBe(true);
    expect(m.setFolderTrust).toHaveBeenCalledWith("/home/me/other", true, undefined, null);
    expect(m.create).toHaveBeenCalledTimes(1);
    expect(store.get().trustAsk).toBeNull();
    m.folderTrust.mockResolvedValue({ root: "/", config: [], trusted: null, changed: [] });
  });

  it("on a remote host asks that host about its folder and keeps the answer there", async () => {
    m.folderTrust.mockResolvedValue({ root: "/home/far/app", config: [".mcp.json"], trusted: null, changed: [], digest: "d9" });
    m.create.mockResolvedValue(threadDetail("box:far", 0));
    m.setFolderTrust.mockResolvedValue({ root: "/home/far/app", config: [".mcp.json"], trusted: false, changed: [] });
    const created = createThread({ ...args, cwd: "~/app", host: "box" });
    await vi.waitFor(() => expect(store.get().trustAsk).not.toBeNull());
    expect(store.get().trustAsk?.view.root).toBe("/home/far/app");
    store.get().trustAsk?.answer(false);
    expect(await created).toBe(true);
    expect(m.folderTrust).toHaveBeenCalledWith("~/app", "box");
    expect(m.setFolderTrust).toHaveBeenCalledWith("~/app", false, "d9", "box");
    expect(m.create).toHaveBeenCalledWith(expect.objectContaining({ cwd: "~/app", host: "box" }));
    m.folderTrust.mockResolvedValue({ root: "/", config: [], trusted: null, changed: [] });
  });

  it("lists it, opens its tab, puts the keyboard in its composer and remembers the folder", async () => {
    const detail = threadDetail("new", 0);
    m.create.mockResolvedValue(detail);
    expect(await createThread(args)).toBe(true);
    expect(m.create).toHaveBeenCalledWith({
      harness: "codex",
      cwd: "/home/me/other",
      title: null,
      mode: null,
      sandbox: null,
      host: null,
    });
    const state = store.get();
    expect(state.threads).toEqual([stripTurns(detail)]);
    expect(state.slots.new?.detail).toBe(detail);
    expect(state.tabs.map((t) => t.thread_id)).toEqual(["new"]);
    expect(state.focusComposer).toBe(1);
    expect(localStorage.getItem("forkhost.lastFolder")).toBe("/home/me/other");
    expect(localStorage.getItem("forkhost.lastHarness")).toBe("codex");
  });

  it("sends the first prompt when there is one", async () => {
    m.create.mockResolvedValue(threadDetail("new", 0));
    await createThread({ ...args, title: " Named ", prompt: "go", mode: "untrusted", sandbox: "read-only" });
    expect(m.create).toHaveBeenCalledWith({
      harness: "codex",
      cwd: "/home/me/other",
      title: "Named",
      mode: "untrusted",
      sandbox: "read-only",
      host: null,
    });
    expect(m.startTurn).toHaveBeenCalledWith("new", "go");
    expect(store.get().focusComposer).toBe(0);
  });

  it("says why it could not", async () => {
    m.create.mockRejectedValue(new Error("no folder"));
    expect(await createThread(args)).toBe(false);
    expect(store.get().toasts[0]?.title).toMatch(/^New thread: /);
    expect(store.get().tabs).toEqual([]);
  });
});

describe("sessions on this machine", () => {
  it("are listed, or an empty list with the reason", async () => {
    const found = [{ harness: "pi" }] as never;
    m.discover.mockResolvedValue(found);
    await loadDiscovered();
    expect(store.get().discovered).toBe(found);
    m.discover.mockRejectedValue(new Error("unreadable"));
    await loadDiscovered();
    expect(store.get().discovered).toEqual([]);
    expect(store.get().toasts[0]?.title).toMatch(/^Sessions on this machine: /);
  });

  it("one already imported opens its tab", async () => {
    await importAndOpen("claude", "/s.jsonl", "known");
    expect(m.importSession).not.toHaveBeenCalled();
    expect(store.get().tabs.map((t) => t.thread_id)).toEqual(["known"]);
  });

  it("one imported is listed and opened, the progress notice gone", async () => {
    const detail = threadDetail("imp", 1);
    m.importSession.mockResolvedValue(detail);
    await importAndOpen("claude", "/s.jsonl", null);
    expect(m.importSession).toHaveBeenCalledWith("claude", "/s.jsonl");
    expect(store.get().threads).toEqual([stripTurns(detail)]);
    expect(store.get().tabs.map((t) => t.thread_id)).toEqual(["imp"]);
    expect(store.get().toasts).toEqual([]);
    expect(m.discover).toHaveBeenCalled();
  });

  it("one that cannot be read turns the progress notice into the reason", async () => {
    m.importSession.mockRejectedValue(new Error("bad file"));
    await importAndOpen("claude", "/s.jsonl", null);
    expect(store.get().toasts).toMatchObject([{ kind: "error" }]);
    expect(store.get().toasts[0]?.title).toMatch(/^Can't open: /);
  });
});

describe("renaming and archiving", () => {
  it("rename, then re-read the list", async () => {
    m.rename.mockResolvedValue(stripTurns(threadDetail("a")));
    await renameThread("a", "New name");
    expect(m.rename).toHaveBeenCalledWith("a", "New name");
    expect(m.threads).toHaveBeenCalled();
  });

  it("archive closes the thread's tabs", async () => {
    m.archive.mockResolvedValue(stripTurns(threadDetail("a")));
    store.set({
      tabs: [
        { id: "x1", thread_id: "a", kind: "conversation" },
        { id: "x2", thread_id: "b", kind: "conversation" },
        { id: "x3", thread_id: "a", kind: "terminal" },
      ],
      activeTab: "x1",
    });
    await archiveThread("a");
    expect(m.archive).toHaveBeenCalledWith("a", true);
    expect(store.get().tabs.map((t) => t.id)).toEqual(["x2"]);
    expect(store.get().activeTab).toBe("x2");
  });

  it("a failed archive keeps the tabs and says why", async () => {
    m.archive.mockRejectedValue(new Error("locked"));
    store.set({ tabs: [{ id: "x1", thread_id: "a", kind: "conversation" }], activeTab: "x1" });
    await archiveThread("a");
    expect(store.get().tabs).toHaveLength(1);
    expect(store.get().toasts[0]?.title).toMatch(/^Archive: /);
  });
});
