// The harnesses' names as the UI writes them, for each `HarnessKind` Rust has (a harness added
// or renamed there fails the type check here).
import type { HarnessKind } from "./bindings/HarnessKind";

export const HARNESS_NAMES: Record<HarnessKind, string> = {
  claude: "Claude Code",
  codex: "Codex",
  pi: "Pi",
  opencode: "OpenCode",
};

/** Every harness, in the order the UI lists them. */
export const HARNESSES: readonly HarnessKind[] = ["claude", "codex", "pi", "opencode"];

/**
 * The harnesses a conversation from another one can continue in: Forkhost writes their
 * sessions itself. An ACP agent (OpenCode) keeps its sessions its own way; a conversation
 * continues from it, not into it.
 */
export const TAKES_CONVERSATIONS: readonly HarnessKind[] = ["claude", "codex", "pi"];

/** Whether a word from outside the bindings (a remembered choice) names a harness. */
export function isHarness(name: string): name is HarnessKind {
  return Object.prototype.hasOwnProperty.call(HARNESS_NAMES, name);
}

export function harnessName(harness: string) {
  return isHarness(harness) ? HARNESS_NAMES[harness] : harness;
}
