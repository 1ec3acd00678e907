// Before each unit test of the actions: a window as it starts (store, mock calls, measurements).
import { vi } from "vitest";
import { resetStore } from "../state";

export function freshWindow() {
  resetStore();
  vi.clearAllMocks();
  delete window.__forkhostPerf;
}
