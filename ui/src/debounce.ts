// Calls per key, coalesced: each call restarts that key's wait, the last one runs.
export function debounced(fn: (key: string) => void, ms: number) {
  const timers = new Map<string, ReturnType<typeof setTimeout>>();
  return (key: string) => {
    const t = timers.get(key);
    if (t) clearTimeout(t);
    timers.set(
      key,
      setTimeout(() => {
        timers.delete(key);
        fn(key);
      }, ms),
    );
  };
}
