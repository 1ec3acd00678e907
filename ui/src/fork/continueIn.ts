// "Continue in another agent": the Fork menu's items that carry the conversation up to a
// message into another harness (a new native session of it; the Host's `fork_into`).
import type { HarnessKind } from "../bindings/HarnessKind";
import { HARNESSES, HARNESS_NAMES } from "../harnesses";
import type { ContextMenuItem } from "../state";
import type { ForkRole } from "./selection";

/**
 * "Continue in <harness>" for each harness but the thread's own, before or after the message
 * as the Fork item is; disabled (with the reason) where the fork is refused.
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
  return HARNESSES.filter((h) => h !== harness).map((target) => ({
    label: `Continue in ${HARNESS_NAMES[target]}${where}`,
    disabled: !ok,
    title: why,
    action: () => go(target),
  }));
}
