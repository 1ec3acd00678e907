// "Continue in another agent": the Fork menu's items that carry the conversation up to a
// message into another harness (a new native session of it; the Host's `fork_into`).
import type { HarnessKind } from "../bindings/HarnessKind";
import type { HarnessReport } from "../bindings/HarnessReport";
import { HARNESS_NAMES, TAKES_CONVERSATIONS } from "../harnesses";
import type { ContextMenuItem } from "../state";
import type { ForkRole } from "./selection";

/**
 * Why `target` cannot take a conversation now, from its harness report, or `undefined` when it
 * can (or its report is not in yet: the Host then refuses in words, as for any fork).
 */
export function targetRefusal(target: HarnessKind, report: HarnessReport | undefined): string | undefined {
  if (!report) return undefined;
  const name = HARNESS_NAMES[target];
  if (!report.path) return `${name} is not installed${report.next_step ? `: ${report.next_step}` : ""}`;
  if (report.error) return `${name} cannot be used: ${report.error}`;
  if (report.capabilities && report.capabilities.boundaries.length === 0) {
    const note = report.capabilities.note;
    return `${name} ${report.version ?? ""}`.trim() + ` cannot take a conversation${note ? `: ${note}` : ""}`;
  }
  return undefined;
}

/**
 * "Continue in <harness>" for each harness but the thread's own, before or after the message
 * as the Fork item is; disabled (with the reason) where the fork is refused or the target
 * harness cannot take the conversation (missing, broken, or a version without the mechanism).
 */
export function continueItems(
  harness: HarnessKind | undefined,
  role: ForkRole,
  ok: boolean,
  why: string | undefined,
  go: (into: HarnessKind) => void,
  reports: HarnessReport[] | null = null,
): ContextMenuItem[] {
  if (harness === undefined) return [];
  const where = role === "user" ? " from before this message" : "";
  return TAKES_CONVERSATIONS.filter((h) => h !== harness).map((target) => {
    const refused = ok ? targetRefusal(target, reports?.find((r) => r.name === target)) : why;
    return {
      label: `Continue in ${HARNESS_NAMES[target]}${where}`,
      disabled: !ok || refused !== undefined,
      title: refused,
      action: () => go(target),
    };
  });
}
