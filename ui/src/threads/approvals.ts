// The approval requests each thread's runtime waits on, as this window knows them: added and
// removed by Host events, re-read from the Host when a thread is read (so a request raised before
// this window existed shows too), answered through `answer_approval`.
import * as ipc from "../ipc";
import type { ApprovalDecision, ApprovalView, HostEvent } from "../ipc";
import { store } from "../state";
import { notifyError } from "../ui/toasts";

/** Adds a request (a re-raised id replaces the older one, as in the Host). */
export function withRequest(list: readonly ApprovalView[], request: ApprovalView): ApprovalView[] {
  return [...list.filter((r) => r.id !== request.id), request];
}

/** Removes a request by id. */
export function withoutRequest(list: readonly ApprovalView[], id: string): ApprovalView[] {
  return list.filter((r) => r.id !== id);
}

function setPending(threadId: string, update: (list: ApprovalView[]) => ApprovalView[]) {
  store.set((s) => {
    const before = s.approvals[threadId] ?? [];
    const after = update(before);
    if (after === before || (after.length === 0 && before.length === 0)) return {};
    const approvals = { ...s.approvals };
    if (after.length === 0) delete approvals[threadId];
    else approvals[threadId] = after;
    return { approvals };
  });
}

/** The thread's pending requests, oldest first. */
export function pendingOf(threadId: string): ApprovalView[] {
  return store.get().approvals[threadId] ?? [];
}

/** Per thread: approval events seen, so a re-read that crossed one does not undo it. */
const seen = new Map<string, number>();

/** Applies the approval part of a Host event (any thread's: its sidebar entry shows it waits). */
export function applyApprovalEvent(event: HostEvent) {
  const id = event.thread_id;
  if (event.type.startsWith("approval_") || event.type === "turn_ended" || event.type === "runtime_stopped") {
    seen.set(id, (seen.get(id) ?? 0) + 1);
  }
  if (event.type === "approval_requested") {
    setPending(id, (list) => withRequest(list, event.request));
  } else if (event.type === "approval_resolved") {
    setPending(id, (list) => withoutRequest(list, event.id));
  } else if (event.type === "turn_ended" || event.type === "runtime_stopped") {
    // Nothing of an ended turn or a stopped runtime can still wait.
    setPending(id, () => []);
  }
}

/** Re-reads what the thread's runtime waits on (a thread opened or shown). */
export async function refreshApprovals(threadId: string): Promise<void> {
  const before = seen.get(threadId) ?? 0;
  try {
    const list = await ipc.pendingApprovals(threadId);
    // An event that arrived meanwhile is newer than this reply may be.
    if (Array.isArray(list) && (seen.get(threadId) ?? 0) === before) setPending(threadId, () => list);
  } catch {
    // A thread that cannot be read shows its own error; nothing waits that we know of.
  }
}

/**
 * How long a card must have been on screen before Enter approves it: a card that appears as the
 * user presses Enter (a double Enter after Send, key repeat) is never approved unseen. Buttons
 * are not held back: a click is aimed.
 */
export const ENTER_SETTLE_MS = 500;
const shownAt = new Map<string, number>();

/** Records when a request's card first showed in this window. */
export function markShown(requestId: string, now = performance.now()) {
  if (!shownAt.has(requestId)) shownAt.set(requestId, now);
}

/** Whether Enter may approve the request now: its card has been seen long enough. */
export function enterMayApprove(requestId: string, now = performance.now()): boolean {
  const at = shownAt.get(requestId);
  return at !== undefined && now - at >= ENTER_SETTLE_MS;
}

/** Answers a request; on failure a toast says why and the list is re-read from the Host. */
export async function answerApproval(
  threadId: string,
  requestId: string,
  decision: ApprovalDecision,
): Promise<boolean> {
  try {
    await ipc.answerApproval(threadId, requestId, decision);
    setPending(threadId, (list) => withoutRequest(list, requestId));
    return true;
  } catch (err) {
    notifyError(err, "Approval");
    await refreshApprovals(threadId);
    return false;
  }
}

/** Answers a question request (one text per question) or dismisses it (null); like [answerApproval]. */
export async function answerQuestion(threadId: string, requestId: string, answers: string[] | null): Promise<boolean> {
  try {
    await ipc.answerQuestion(threadId, requestId, answers);
    setPending(threadId, (list) => withoutRequest(list, requestId));
    return true;
  } catch (err) {
    notifyError(err, answers === null ? "Dismiss" : "Answer");
    await refreshApprovals(threadId);
    return false;
  }
}
