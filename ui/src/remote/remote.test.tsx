import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { cleanup, fireEvent, render, waitFor } from "@testing-library/react";
import * as ipc from "../ipc";
import { threadDetail } from "../testing/threads";
import { ContinueDialog } from "./ContinueDialog";
import { Hosts } from "./Hosts";
import { continuePoint, openContinueDialog, remote } from "./remote";

vi.mock("../ipc", () => import("../testing/ipcMock"));
afterEach(cleanup);
beforeEach(() => {
  vi.mocked(ipc.remoteHosts).mockReset();
  vi.mocked(ipc.hostThreads).mockReset();
  vi.mocked(ipc.continueOnHost).mockReset();
  remote.set({ hosts: null, threads: {}, ask: null });
});

const box = { name: "box", destination: "me@box", ssh_options: [], remote_program: null };
const gone = { name: "gone", destination: "me@gone", ssh_options: [], remote_program: null };

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
