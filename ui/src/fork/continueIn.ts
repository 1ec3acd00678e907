// "Continue in another agent": the Fork menu's items that carry the conversation up to a
// message into another harness (a new native session of it; the Host's `fork_into`).
import type { HarnessKind } from "../bindings/HarnessKind";
import type { ContextMenuItem } from "../state";
import { HARNESSES, HARNESS_NAMES } from "../harnesses";
import type { ForkRole } from "./selection";

/**
 * Why a harness cannot take a conversation from another one yet; `undefined` when it can.
 * Codex: its app-server records injected history outside its turns, so the fork's turns could
 * not be shown or forked again from Forkhost's reader (docs/harness-behaviour.md).
 */
export function cannotTake(target: HarnessKind): string | undefined {
  return target === "codex"
    ? "Codex cannot take a conversation from another agent yet"
    : undefined;
}

/**
 * "Continue in <harness>" for each harness but the thread's own, before or after the message
 * as the Fork item is; disabled (with the reason) where the fork is refused or the target
 * cannot take a history.
 */
export function continueItems(
  harness: HarnessKind | undefined,
  role: ForkRole,
  ok: boolean,
  why: string | undefined,
  go: (into: HarnessKind) => void,
): ContextMenuItem[] {
  if (harness === undefined) return [];
  const where = role === "user" ? " from before this message" : "";
  return HARNESSES.filter((h) => h !== harness).map((target) => {
    const refused = cannotTake(target);
    return {
      label: `Continue in ${HARNESS_NAMES[target]}${where}`,
      disabled: !ok || refused !== undefined,
      title: refused ?? why,
      action: () => go(target),
    };
  });
}
