// A thread's session grants ("Always this session") as this window knows them: read when its
// header shows, re-read on the Host's grants_changed, revoked from the header's list.
import * as ipc from "../ipc";
import { store } from "../state";
import { notifyError } from "../ui/toasts";

/** Re-reads the thread's grants into the store. */
export async function refreshGrants(threadId: string): Promise<void> {
  try {
    const list = await ipc.sessionGrants(threadId);
    if (Array.isArray(list)) store.set((s) => ({ grants: { ...s.grants, [threadId]: list } }));
  } catch {
    // A thread that cannot be read shows its own error.
  }
}

/** Revokes one grant; a toast says why when it cannot be, and the list is re-read either way. */
export async function revokeGrant(threadId: string, grantId: string): Promise<boolean> {
  try {
    await ipc.revokeGrant(threadId, grantId);
    return true;
  } catch (err) {
    notifyError(err, "Revoke");
    return false;
  } finally {
    await refreshGrants(threadId);
  }
}
