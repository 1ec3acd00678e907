// The window's notices (bottom right): at most five, each gone after its time (errors stay
// longer, progress until replaced). The timers live here, next to the ids they belong to.
import { describeError } from "../errors";
import { type Toast, store } from "../state";

let toastSeq = 0;
const toastTimers = new Map<number, ReturnType<typeof setTimeout>>();

export function notify(toast: Omit<Toast, "id">, ttlMs?: number): number {
  const id = ++toastSeq;
  store.set((s) => ({ toasts: [...s.toasts.slice(-4), { ...toast, id }] }));
  const ttl = ttlMs ?? (toast.kind === "error" ? 12_000 : toast.kind === "progress" ? 0 : 4_000);
  if (ttl > 0) toastTimers.set(id, setTimeout(() => dismissToast(id), ttl));
  return id;
}

export function replaceToast(id: number, toast: Omit<Toast, "id">, ttlMs?: number) {
  const timer = toastTimers.get(id);
  if (timer) clearTimeout(timer);
  dismissToast(id);
  return notify(toast, ttlMs);
}

export function dismissToast(id: number) {
  toastTimers.delete(id);
  store.set((s) => ({ toasts: s.toasts.filter((t) => t.id !== id) }));
}

export function notifyError(err: unknown, context?: string) {
  const words = describeError(err);
  return notify({
    kind: "error",
    title: context ? `${context}: ${words.title}` : words.title,
    message: words.message,
  });
}
