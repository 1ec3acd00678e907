import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { cleanup, fireEvent, render, waitFor } from "@testing-library/react";
import * as ipc from "../ipc";
import { threadDetail } from "../testing/threads";
import { ContinueDialog } from "./ContinueDialog";
import { Hosts } from "./Hosts";
import { store } from "../state";
import { upsertThread } from "../threads/cache";
import { harnessReport, missingReport } from "../testing/harnessReport";
import { continuePoint, harnessesLine, hostOf, openContinueDialog, readHostsOfTabs, remote, remoteThreadId, remoteTitle } from "./remote";

vi.mock("../ipc", () => import("../testing/ipcMock"));
afterEach(cleanup);
beforeEach(() => {
  vi.mocked(ipc.remoteHosts).mockReset();
  vi.mocked(ipc.hostThreads).mockReset();
  vi.mocked(ipc.continueOnHost).mockReset();
  vi.mocked(ipc.hostDoctor).mockReset();
  vi.mocked(ipc.hostDoctor).mockResolvedValue([]);
  remote.set({ hosts: null, threads: {}, doctors: {}, ask: null });
});

const box = { name: "box", destination: "me@box", ssh_options: [], remote_program: null };
const gone = { name: "gone", destination: "me@gone", ssh_options: [], remote_program: null };

describe("remote tabs after a restart", () => {
  it("reads each host of an open remote tab once, and names the tab from its list", async () => {
    vi.mocked(ipc.hostThreads).mockResolvedValue([
      threadDetail("r1", 1, { title: "Fix the parser", harness: "pi", updated_at: Date.now() }),
    ]);
    readHostsOfTabs(["local-1", remoteThreadId("box", "r1"), remoteThreadId("box", "r2")]);
    expect(ipc.hostThreads).toHaveBeenCalledTimes(1);
    expect(ipc.hostThreads).toHaveBeenCalledWith("box");
    await waitFor(() => expect(remote.get().threads.box?.status).toBe("ready"));
    expect(remoteTitle(remote.get(), "box:r1")).toBe("Fix the parser");
    expect(remoteTitle(remote.get(), "box:r2")).toBeUndefined();
    expect(remoteTitle(remote.get(), "r1")).toBeUndefined();
    // Read already: not again.
    readHostsOfTabs(["box:r1"]);
    expect(ipc.hostThreads).toHaveBeenCalledTimes(1);
  });
});

describe("a host's agents", () => {
  it("are listed with their versions, the ones it lacks left out, and said when unknown", async () => {
    vi.mocked(ipc.hostDoctor).mockResolvedValue([
      harnessReport("claude", { version: "2.1.3" }),
      missingReport("codex"),
      harnessReport("pi", { version: "0.74.0", sign_in: "signed_out" }),
    ]);
    remote.set({ hosts: [box] });
    vi.mocked(ipc.hostThreads).mockResolvedValue([]);
    const view = render(<Hosts />);
    fireEvent.click(view.container.querySelector('[data-host="box"] [data-action="toggle-host"]')!);
    await waitFor(() => expect(view.container.querySelector('[data-host="box"] [data-part="harnesses"]')).not.toBeNull());
    expect(view.container.querySelector('[data-part="harnesses"]')!.textContent).toBe(
      "Claude Code 2.1.3 · Pi (signed out)",
    );
    expect(harnessesLine([missingReport("pi")])).toBe("no agent installed there");
    expect(harnessesLine("failed")).toBe("its agents could not be listed");
    expect(harnessesLine(undefined)).toBeNull();
  });
});

describe("the sidebar's hosts", () => {
  it("shows nothing without hosts, and each host's threads or why it is offline", async () => {
    vi.mocked(ipc.remoteHosts).mockResolvedValueOnce([]);
    const none = render(<Hosts />);
    await waitFor(() => expect(remote.get().hosts).toEqual([]));
    expect(none.container.textContent).toBe("");
    cleanup();

    remote.set({ hosts: [box, gone] });
    vi.mocked(ipc.hostThreads).mockImplementation(async (host: string) => {
      if (host === "gone") throw new ipc.IpcError("host_unreachable", "ssh: connect to host gone port 22: Connection refused");
      return [threadDetail("r1", 1, { title: "Fix the parser · after turn 1", harness: "pi", updated_at: Date.now() })];
    });
    const view = render(<Hosts />);
    fireEvent.click(view.container.querySelector('[data-host="box"] [data-action="toggle-host"]')!);
    await waitFor(() => expect(view.container.querySelector('[data-remote-thread-id="r1"]')).not.toBeNull());
    expect(view.container.querySelector('[data-host="box"]')!.textContent).toContain("Fix the parser · after turn 1");
    // Its agents, as its doctor found them there.
    expect(ipc.hostDoctor).toHaveBeenCalledWith("box");
    fireEvent.click(view.container.querySelector('[data-host="gone"] [data-action="toggle-host"]')!);
    await waitFor(() => expect(view.container.querySelector('[data-host="gone"] [data-part="offline"]')).not.toBeNull());
    const offline = view.container.querySelector('[data-host="gone"] [data-part="offline"]')!.textContent!;
    expect(offline).toMatch(/^offline since \d\d:\d\d · Reconnect/);
    expect(offline).toContain("Connection refused");
    expect(view.container.querySelector('[data-action="update-host"]')).toBeNull();
    fireEvent.click(view.container.querySelector('[data-action="reconnect"]')!);
    expect(ipc.hostThreads).toHaveBeenLastCalledWith("gone");
    // A host added from a terminal meanwhile shows when the window is back.
    vi.mocked(ipc.remoteHosts).mockResolvedValueOnce([box, gone, { ...box, name: "new" }]);
    fireEvent.focus(window);
    await waitFor(() => expect(view.container.querySelector('[data-host="new"]')).not.toBeNull());
  });

  it("offers to update a host that runs another forkhost, and reads it again after", async () => {
    remote.set({ hosts: [box] });
    vi.mocked(ipc.hostThreads).mockRejectedValueOnce(
      new ipc.IpcError("version_mismatch", "box runs forkhost 0.0.1; this is 0.1.0"),
    );
    vi.mocked(ipc.hostThreads).mockResolvedValueOnce([]);
    vi.mocked(ipc.installOnHost).mockResolvedValueOnce(box);
    const view = render(<Hosts />);
    fireEvent.click(view.container.querySelector('[data-action="toggle-host"]')!);
    await waitFor(() => expect(view.container.querySelector('[data-action="update-host"]')).not.toBeNull());
    fireEvent.click(view.container.querySelector('[data-action="update-host"]')!);
    await waitFor(() => expect(remote.get().threads.box).toEqual({ status: "ready", threads: [] }));
    expect(ipc.installOnHost).toHaveBeenCalledWith("box");
  });
});

describe("a remote thread in a tab", () => {
  it("is named HOST:ID, and only a host with a thread after it names a host", () => {
    expect(remoteThreadId("dev.box", "0199aaaa-bbbb")).toBe("dev.box:0199aaaa-bbbb");
    expect(hostOf("dev.box:0199aaaa-bbbb")).toBe("dev.box");
    for (const here of ["0199aaaa-bbbb", ":x", "box:", ""]) expect(hostOf(here)).toBeNull();
  });

  it("opens from its host's list in a tab of its own, read through the host, and stays out of this machine's list", async () => {
    remote.set({ hosts: [box], threads: { box: { status: "ready", threads: [threadDetail("r1", 1, { title: "On the box" })] } } });
    vi.mocked(ipc.show).mockResolvedValue(threadDetail("box:r1", 1, { title: "On the box" }));
    store.set({ tabs: [], activeTab: null, slots: {}, threads: [] });
    const view = render(<Hosts />);
    fireEvent.click(view.container.querySelector('[data-host="box"] [data-action="toggle-host"]')!);
    fireEvent.click(view.container.querySelector('[data-remote-thread-id="r1"]')!);
    const tab = store.get().tabs.find((t) => t.id === store.get().activeTab);
    expect(tab?.thread_id).toBe("box:r1");
    await waitFor(() => expect(store.get().slots["box:r1"]?.detail?.title).toBe("On the box"));
    expect(ipc.show).toHaveBeenCalledWith("box:r1");
    expect(store.get().threads).toEqual([]);
    await waitFor(() =>
      expect(view.container.querySelector('[data-remote-thread-id="r1"]')!.getAttribute("data-active")).toBe("true"),
    );
    upsertThread(threadDetail("local1", 1));
    expect(store.get().threads.map((t) => t.id)).toEqual(["local1"]);
  });

  it("continues on this machine or another host, not on its own", async () => {
    vi.mocked(ipc.remoteHosts).mockResolvedValue([box, gone]);
    remote.set({ hosts: [box, gone] });
    openContinueDialog({ threadId: "box:r1", turn: 1, role: "assistant" });
    const view = render(<ContinueDialog />);
    const options = [...view.container.querySelectorAll('select[name="host"] option')].map((o) => o.getAttribute("value"));
    expect(options).toEqual(["local", "gone"]);
  });
});

describe("Continue on another machine…", () => {
  it("cuts after a reply and before a prompt", () => {
    expect(continuePoint({ threadId: "t", turn: 2, role: "assistant" })).toEqual({ kind: "after", turn: 2 });
    expect(continuePoint({ threadId: "t", turn: 2, role: "user" })).toEqual({ kind: "before", turn: 2 });
  });

  it("sends the host, folder and choices, and keeps the dialog open with the words of a refusal", async () => {
    vi.mocked(ipc.remoteHosts).mockResolvedValue([box, gone]);
    remote.set({ hosts: [box, gone] });
    vi.mocked(ipc.continueOnHost).mockRejectedValueOnce(
      new ipc.IpcError("conflict", "/src holds files and is not a clone of the branch's repository"),
    );
    openContinueDialog({ threadId: "t1", turn: 2, role: "assistant" });
    const view = render(<ContinueDialog />);
    const submit = view.container.querySelector('button[name="continue-on-host"]') as HTMLButtonElement;
    expect(submit.disabled).toBe(true);
    fireEvent.change(view.container.querySelector('select[name="host"]')!, { target: { value: "gone" } });
    fireEvent.change(view.container.querySelector('input[name="remote-cwd"]')!, { target: { value: " /src " } });
    fireEvent.click(view.container.querySelector('input[name="bring-files"]')!);
    fireEvent.click(view.container.querySelector('input[name="trust-folder"]')!);
    fireEvent.click(submit);
    await waitFor(() => expect(view.container.querySelector('[data-part="continue-error"]')).not.toBeNull());
    expect(ipc.continueOnHost).toHaveBeenCalledWith({
      thread_id: "t1",
      at: { kind: "after", turn: 2 },
      host: "gone",
      cwd: "/src",
      files: false,
      trust: true,
      into: null,
    });
    expect(view.container.querySelector('[data-part="continue-error"]')!.textContent).toContain("not a clone");
    expect(remote.get().ask).not.toBeNull();

    vi.mocked(ipc.continueOnHost).mockResolvedValueOnce({
      host: "gone",
      thread: threadDetail("r2", 2, { title: "t · after turn 2" }),
      files_folder: null,
      files_note: "--no-files: only the conversation moved",
    });
    vi.mocked(ipc.hostThreads).mockResolvedValue([]);
    fireEvent.click(submit);
    await waitFor(() => expect(remote.get().ask).toBeNull());
    expect(ipc.hostThreads).toHaveBeenCalledWith("gone");
  });
});

describe("a host's set-up view", () => {
  it("shows the agents its forkhost finds, with what to run there, and checks again there", async () => {
    const { FirstRunDialog } = await import("../firstRun/FirstRunDialog");
    vi.mocked(ipc.hostDoctor).mockResolvedValue([
      harnessReport("pi", { version: "1.6.0" }),
      missingReport("claude"),
      harnessReport("codex", { sign_in: "signed_out" }),
    ]);
    remote.set({ hosts: [box] });
    vi.mocked(ipc.hostThreads).mockResolvedValue([]);
    const hosts = render(<Hosts />);
    fireEvent.click(hosts.container.querySelector('[data-host="box"] [data-action="toggle-host"]')!);
    await waitFor(() => expect(hosts.container.querySelector('[data-action="host-setup"]')).not.toBeNull());
    fireEvent.click(hosts.container.querySelector('[data-action="host-setup"]')!);
    expect(store.get().dialog).toEqual({ kind: "first-run", host: "box" });
    cleanup();

    const calls = vi.mocked(ipc.hostDoctor).mock.calls.length;
    const view = render(<FirstRunDialog />);
    await waitFor(() => expect(view.baseElement.querySelector('.setup-card[data-harness="pi"]')?.getAttribute("data-state")).toBe("ready"));
    const card = (name: string) => view.baseElement.querySelector<HTMLElement>(`.setup-card[data-harness="${name}"]`)!;
    expect(view.baseElement.textContent).toContain("Set up agents on box");
    expect(card("pi").textContent).toContain("1.6.0");
    expect(card("claude").dataset.state).toBe("missing");
    expect(card("claude").textContent).toContain("Install it in a terminal on box:");
    expect(card("codex").textContent).toContain("Sign in in a terminal on box:");
    // A file on another machine cannot be chosen from here.
    expect(view.baseElement.querySelector('[data-action^="choose-file-"]')).toBeNull();
    // This machine's own sessions are not listed for a host.
    expect(view.baseElement.querySelector("[data-first-run-sessions]")).toBeNull();
    fireEvent.click(view.baseElement.querySelector('[data-action="check-again"]')!);
    await waitFor(() => expect(vi.mocked(ipc.hostDoctor).mock.calls.length).toBeGreaterThan(calls + 1));
    expect(ipc.hostDoctor).toHaveBeenLastCalledWith("box");
    expect(ipc.doctor).not.toHaveBeenCalled();
    // New thread from here starts on box.
    fireEvent.click(view.baseElement.querySelector('[data-action="first-run-new-thread"]')!);
    expect(store.get().dialog).toEqual({ kind: "new-thread", host: "box" });
  });
});
