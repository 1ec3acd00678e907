// What the first-run view and New thread say about each harness, in the user's words: found
// (with its version), not signed in, or not installed, and what to do. No environment-variable
// names here: those stay in `forkhost doctor` and the docs.
import type { FoundBy } from "../bindings/FoundBy";
import type { HarnessKind } from "../bindings/HarnessKind";
import type { HarnessReport } from "../bindings/HarnessReport";
import { HARNESSES, harnessName } from "../harnesses";

export const HARNESS_ORDER = HARNESSES;
export type HarnessName = HarnessKind;

export type HarnessState = "checking" | "ready" | "signed_out" | "missing";

export function harnessState(report: HarnessReport | undefined): HarnessState {
  if (!report) return "checking";
  if (!report.path) return "missing";
  return report.sign_in === "signed_out" ? "signed_out" : "ready";
}

/** The harnesses a new thread can start with now. */
export function usableHarnesses(doctor: HarnessReport[] | null): HarnessName[] {
  if (!doctor) return [];
  return HARNESS_ORDER.filter((name) => harnessState(doctor.find((r) => r.name === name)) === "ready");
}

/** Whether the harness reports are in and none can be used: the first-run view is the way on. */
export function noneUsable(doctor: HarnessReport[] | null): boolean {
  return doctor !== null && usableHarnesses(doctor).length === 0;
}

/** The short status beside a harness's name. */
export function statusLabel(report: HarnessReport | undefined): string {
  switch (harnessState(report)) {
    case "checking":
      return "Looking…";
    case "missing":
      return "Not installed";
    case "signed_out":
      return "Not signed in";
    case "ready":
      return `Ready · ${report?.version ?? ""}`.trim();
  }
}

/** The command to copy first (the recommended install, or the sign-in). */
export function firstCommand(report: HarnessReport): string | null {
  if (harnessState(report) === "signed_out") return report.install.sign_in_command;
  return report.install.commands[0]?.command ?? null;
}

/**
 * One line for a harness that cannot start a thread, with what to do: shown in New thread
 * itself (not only in a tooltip).
 */
export function unavailableLine(report: HarnessReport | undefined, name: string): string | null {
  const product = harnessName(name);
  switch (harnessState(report)) {
    case "missing": {
      const cmd = report ? firstCommand(report) : null;
      return cmd ? `${product} is not installed. Install it with ${cmd}` : `${product} is not installed.`;
    }
    case "signed_out":
      return `${product} is installed but not signed in. Run ${report?.install.sign_in_command} in a terminal.`;
    default:
      return null;
  }
}

/** Why Start thread is disabled, or null when it can start. */
export function startBlocker(args: { harness: string; report: HarnessReport | undefined; cwd: string }): string | null {
  const product = harnessName(args.harness);
  const state = harnessState(args.report);
  if (state === "missing") return `Install ${product} or pick another agent`;
  if (state === "signed_out") return `Sign ${product} in or pick another agent`;
  if (!args.cwd.trim()) return "Choose a project folder";
  return null;
}

/** "Found on your PATH" and the like, without variable names. */
export function foundByWords(foundBy: FoundBy | null): string | null {
  switch (foundBy) {
    case "override":
      return "the file you chose";
    case "path":
      return "your PATH";
    case "login_shell":
      return "your shell's PATH";
    case "fallback":
      return "a usual install folder";
    case null:
      return null;
  }
}
