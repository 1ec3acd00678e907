// A thread's turns from the composer: the draft, sending a prompt (shown live at once), stopping.
import { describeError } from "../errors";
import * as ipc from "../ipc";
import { startLive } from "./live";
import { store, updateSlot } from "../state";
import { notifyError } from "../ui/toasts";

export function setDraft(threadId: string, text: string) {
  store.set((s) => ({ drafts: { ...s.drafts, [threadId]: text } }));
}

export async function sendPrompt(threadId: string, prompt: string): Promise<boolean> {
  const text = prompt.trim();
  if (!text) return false;
  const slot = store.get().slots[threadId];
  if (slot?.live && slot.live.phase !== "ended") return false;
  const base = slot?.detail?.turns.length ?? 0;
  updateSlot(threadId, (s) => ({ ...s, live: startLive(prompt, base) }));
  setDraft(threadId, "");
  try {
    await ipc.startTurn(threadId, prompt);
    return true;
  } catch (err) {
    const words = describeError(err);
    updateSlot(threadId, (s) => ({
      ...s,
      live: s.live
        ? { ...s.live, phase: "ended", outcome: "failed", error: `${words.title}: ${words.message}` }
        : s.live,
    }));
    // Give the text back so nothing typed is lost.
    setDraft(threadId, prompt);
    return false;
  }
}

export async function stopTurn(threadId: string) {
  try {
    await ipc.interrupt(threadId);
  } catch (err) {
    notifyError(err, "Stop");
  }
}
