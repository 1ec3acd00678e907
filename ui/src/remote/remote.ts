// Remote hosts in the window (docs/architecture.md "Remote hosts"): the hosts the user added,
// each host's threads as its own forkhost lists them (read when its row is opened, again on
// Reconnect, and for the tabs a restart reopened), and the "Continue on another machine…"
// dialog's state. A store of its own: the tab bar reads a remote thread's title from it.
import type { ContinuedOnHost } from "../bindings/ContinuedOnHost";
import type { ContinueOnHost } from "../bindings/ContinueOnHost";
import type { HarnessReport } from "../bindings/HarnessReport";
import type { RemoteHostView } from "../bindings/RemoteHostView";
import type { ThreadView } from "../bindings/ThreadView";
import { describeError } from "../errors";
import * as ipc from "../ipc";
import { harnessName } from "../harnesses";
import { createStore, useSelector } from "../store";
import { refreshThreads } from "../threads/cache";
import { dismissToast, notify, replaceToast } from "../ui/toasts";

/** One host's threads as last read: being read, read, or the host could not be reached. */
export type HostThreads =
  | { status: "connecting" }
  | { status: "ready"; threads: ThreadView[] }
  | { status: "offline"; since: number; message: string; code: string };

/** "Continue on another machine…" asked on one message. */
export interface ContinueAsk {
  threadId: string;
  turn: number;
  /** A user message continues from before its turn, a reply after. */
  role: "user" | "assistant" | "tool";
}

export interface RemoteState {
  /** null until read. */
  hosts: RemoteHostView[] | null;
  threads: Record<string, HostThreads>;
  /** Each host's harnesses as its doctor found them there; "failed" when it could not say. */
  doctors: Record<string, HarnessReport[] | "failed">;
  ask: ContinueAsk | null;
}

export const remote = createStore<RemoteState>({ hosts: null, threads: {}, doctors: {}, ask: null });

/** How this window names the thread `id` of the host `host` (`HOST:ID`, as the shell reads it:
 * a host's name has no `:` and a thread id is a UUID). */
export function remoteThreadId(host: string, id: string): string {
  return `${host}:${id}`;
}

/** The host of a remote thread's id; null for a thread of this machine. */
export function hostOf(threadId: string): string | null {
  const at = threadId.indexOf(":");
  return at > 0 && at < threadId.length - 1 ? threadId.slice(0, at) : null;
}

export function useRemote<T>(selector: (state: RemoteState) => T): T {
  return useSelector(remote, selector);
}

/** Reads the hosts the user added (an error leaves the list empty: no section to show). */
export async function loadHosts(): Promise<void> {
  try {
    remote.set({ hosts: await ipc.remoteHosts() });
  } catch {
    remote.set({ hosts: [] });
  }
}

function setThreads(host: string, value: HostThreads) {
  remote.set((s) => ({ threads: { ...s.threads, [host]: value } }));
}

/** A remote thread's title as its host's list has it; undefined for a thread of this machine
 * or a host not read yet. */
export function remoteTitle(state: RemoteState, threadId: string): string | undefined {
  const host = hostOf(threadId);
  const list = host ? state.threads[host] : undefined;
  if (!host || list?.status !== "ready") return undefined;
  const id = threadId.slice(host.length + 1);
  return list.threads.find((t) => t.id === id)?.title;
}

/** Reads the lists of the hosts whose threads are open in tabs and not read yet (a restart
 * reopens remote tabs; a tab not shown yet is named from its host's list). */
export function readHostsOfTabs(threadIds: string[]): void {
  const hosts = new Set(threadIds.map(hostOf).filter((h): h is string => h !== null));
  for (const host of hosts) {
    if (!remote.get().threads[host]) void loadHostThreads(host);
  }
}

/** Reads `host`'s threads over ssh; a host that cannot be reached is offline from now. */
export async function loadHostThreads(host: string): Promise<void> {
  setThreads(host, { status: "connecting" });
  try {
    setThreads(host, { status: "ready", threads: await ipc.hostThreads(host) });
    // What runs there, read once the host answers (its versions under its name).
    void loadHostDoctor(host);
  } catch (err) {
    const words = describeError(err);
    const message = words.message ? `${words.title}: ${words.message}` : words.title;
    const code = err instanceof ipc.IpcError ? err.code : "internal";
    setThreads(host, { status: "offline", since: Date.now(), message, code });
  }
}

/** Reads `host`'s harnesses (its `doctor`, over the host's link). */
export async function loadHostDoctor(host: string): Promise<void> {
  let found: HarnessReport[] | "failed";
  try {
    found = await ipc.hostDoctor(host);
  } catch {
    found = "failed";
  }
  remote.set((s) => ({ doctors: { ...s.doctors, [host]: found } }));
}

/** A host's harnesses in a line: each installed one with its version ("Claude Code 2.1.3 ·
 * Pi 0.74.0"); null until read. */
export function harnessesLine(doctor: HarnessReport[] | "failed" | undefined): string | null {
  if (!doctor) return null;
  if (doctor === "failed") return "its agents could not be listed";
  const found = doctor.filter((r) => r.path);
  if (found.length === 0) return "no agent installed there";
  return found
    .map((r) => {
      const version = r.version?.split(" ")[0];
      const name = harnessName(r.name);
      return r.sign_in === "signed_out" ? `${name} (signed out)` : version ? `${name} ${version}` : name;
    })
    .join(" · ");
}

/** A host whose forkhost is another version: this one copied there (over the same ssh), then
 * its threads read again. */
export async function updateHost(host: string): Promise<void> {
  setThreads(host, { status: "connecting" });
  const progress = notify({ kind: "progress", title: `Installing forkhost on ${host}…` });
  try {
    await ipc.installOnHost(host);
    replaceToast(progress, { kind: "success", title: `Forkhost on ${host} is this version now` });
  } catch (err) {
    dismissToast(progress);
    const words = describeError(err);
    const message = words.message ? `${words.title}: ${words.message}` : words.title;
    const code = err instanceof ipc.IpcError ? err.code : "internal";
    setThreads(host, { status: "offline", since: Date.now(), message, code });
    return;
  }
  await loadHostThreads(host);
}

export function openContinueDialog(ask: ContinueAsk) {
  remote.set({ ask });
  // Read again: a host may have been added from a terminal since.
  void loadHosts();
}

export function closeContinueDialog() {
  remote.set({ ask: null });
}

/** Continues the branch there; says where it went, and reads that host's threads again. */
export async function continueOnHost(args: ContinueOnHost): Promise<ContinuedOnHost> {
  const done = await ipc.continueOnHost(args);
  notify({
    kind: "success",
    title: `Continued on ${done.host}: ${done.thread.title}`,
    message: done.files_folder ? `Its files as of that message are in ${done.files_folder}` : (done.files_note ?? undefined),
  });
  if (done.host === "local") void refreshThreads();
  else void loadHostThreads(done.host);
  return done;
}

/** The fork point of a message: a reply's turn is kept, a prompt's is redone. */
export function continuePoint(ask: ContinueAsk): ContinueOnHost["at"] {
  return ask.role === "user" ? { kind: "before", turn: ask.turn } : { kind: "after", turn: ask.turn };
}

/** "14:02", for "offline since". */
export function clock(ms: number): string {
  const d = new Date(ms);
  return `${String(d.getHours()).padStart(2, "0")}:${String(d.getMinutes()).padStart(2, "0")}`;
}
