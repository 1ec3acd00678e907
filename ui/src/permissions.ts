// A thread's permission mode as the UI offers it: the words each harness accepts come from the
// app (`HarnessReport.permission_modes` / `sandboxes`, from the harness's own list), never from
// here; this module only explains them in one plain line each, and picks New thread's default
// from Settings.
import type { DefaultModes } from "./bindings/DefaultModes";
import type { HarnessReport } from "./bindings/HarnessReport";

/** A mode choice: Claude's mode or Codex's approval policy, and Codex's sandbox; null = default. */
export interface ModeChoice {
  mode: string | null;
  sandbox: string | null;
}

export const NO_CHOICE: ModeChoice = { mode: null, sandbox: null };

/** One plain line per word the harnesses use (a word missing here is shown as it is). */
const EXPLAINED: Record<string, Record<string, string>> = {
  claude: {
    default: "asks before edits and commands",
    acceptEdits: "edits files without asking, asks before commands",
    plan: "only plans: reads, changes nothing",
    auto: "decides by itself what needs asking",
    dontAsk: "never asks: what it would ask about is refused",
    bypassPermissions: "runs everything without asking",
  },
  codex: {
    untrusted: "asks before any command that is not read-only",
    "on-request": "the model asks when it thinks it should",
    "on-failure": "asks only when a sandboxed command fails",
    never: "never asks",
    "read-only": "commands may read files, not change them",
    "workspace-write": "commands may change files in the project folder only",
    "danger-full-access": "commands run with no sandbox at all",
  },
};

/** The one-line explanation of a harness's word; empty when none is known. */
export function explain(harness: string, word: string | null): string {
  if (word === null) return "whatever the harness's own settings say";
  return EXPLAINED[harness]?.[word] ?? "";
}

/** "acceptEdits — edits files without asking, …", as a choice is listed. */
export function choiceLabel(harness: string, word: string): string {
  const why = explain(harness, word);
  return why ? `${word} — ${why}` : word;
}

/** The words a harness offers (from its report): modes, sandboxes. */
export function choicesOf(report: HarnessReport | undefined): { modes: string[]; sandboxes: string[] } {
  return { modes: report?.permission_modes ?? [], sandboxes: report?.sandboxes ?? [] };
}

/** Whether the harness has any mode to choose (Pi has none: it runs its tools without asking). */
export function hasModes(report: HarnessReport | undefined): boolean {
  const c = choicesOf(report);
  return c.modes.length > 0 || c.sandboxes.length > 0;
}

/** Settings' default for a harness (null: the harness's own default). */
export function defaultModeFor(defaults: DefaultModes | undefined, harness: string): ModeChoice {
  if (!defaults) return NO_CHOICE;
  if (harness === "claude") return { mode: defaults.claude ?? null, sandbox: null };
  if (harness === "codex") return { mode: defaults.codex_policy ?? null, sandbox: defaults.codex_sandbox ?? null };
  return NO_CHOICE;
}

/** Settings' defaults with one harness's choice replaced. */
export function withDefaultMode(defaults: DefaultModes, harness: string, choice: ModeChoice): DefaultModes {
  if (harness === "claude") return { ...defaults, claude: choice.mode };
  if (harness === "codex") return { ...defaults, codex_policy: choice.mode, codex_sandbox: choice.sandbox };
  return defaults;
}

/**
 * A choice kept only where the harness offers its words (a default saved for words an older or
 * newer harness no longer has falls back to the harness's own default rather than failing).
 */
export function validChoice(report: HarnessReport | undefined, choice: ModeChoice): ModeChoice {
  const c = choicesOf(report);
  return {
    mode: choice.mode !== null && c.modes.includes(choice.mode) ? choice.mode : null,
    sandbox: choice.sandbox !== null && c.sandboxes.includes(choice.sandbox) ? choice.sandbox : null,
  };
}

/** How the header writes a thread's mode ("acceptEdits", "untrusted · danger-full-access"). */
export function modeSummary(harness: string, choice: ModeChoice): string {
  if (harness === "pi") return "runs tools without asking";
  const parts = [choice.mode, choice.sandbox].filter((w): w is string => w !== null);
  return parts.length > 0 ? parts.join(" · ") : "default mode";
}
