import { describe, expect, it } from "vitest";
import type { HarnessKind } from "./bindings/HarnessKind";
import type { HarnessReport } from "./bindings/HarnessReport";
import { choiceLabel, defaultModeFor, explain, modeSummary, validChoice, withDefaultMode } from "./permissions";
import { setupFields } from "./testing/harnessReport";

function report(name: HarnessKind, permission_modes: string[], sandboxes: string[] = []): HarnessReport {
  return {
    name,
    path: "/bin/x",
    version: "1",
    capabilities: null,
    error: null,
    found_by: "path",
    notes: [],
    support: null,
    permission_modes,
    sandboxes,
    ...setupFields("claude"),
  };
}

const none = { claude: null, codex_policy: null, codex_sandbox: null };

describe("permission modes", () => {
  it("explains each word in one plain line", () => {
    expect(explain("claude", "acceptEdits")).toBe("edits files without asking, asks before commands");
    expect(explain("claude", "bypassPermissions")).toBe("runs everything without asking");
    expect(explain("codex", "untrusted")).toBe("asks before any command that is not read-only");
    expect(explain("codex", "never")).toBe("never asks");
    for (const sandbox of ["read-only", "workspace-write", "danger-full-access"]) {
      expect(explain("codex", sandbox)).not.toBe("");
    }
    expect(choiceLabel("codex", "never")).toBe("never — never asks");
    // A word the UI does not know yet is still offered, as it is.
    expect(choiceLabel("claude", "newMode")).toBe("newMode");
  });

  it("takes New thread's default from Settings, per harness", () => {
    const defaults = { claude: "acceptEdits", codex_policy: "untrusted", codex_sandbox: "read-only" };
    expect(defaultModeFor(defaults, "claude")).toEqual({ mode: "acceptEdits", sandbox: null });
    expect(defaultModeFor(defaults, "codex")).toEqual({ mode: "untrusted", sandbox: "read-only" });
    expect(defaultModeFor(defaults, "pi")).toEqual({ mode: null, sandbox: null });
    expect(defaultModeFor(undefined, "claude")).toEqual({ mode: null, sandbox: null });
    expect(withDefaultMode(none, "codex", { mode: "never", sandbox: "danger-full-access" })).toEqual({
      claude: null,
      codex_policy: "never",
      codex_sandbox: "danger-full-access",
    });
    expect(withDefaultMode(none, "pi", { mode: "x", sandbox: null })).toBe(none);
  });

  it("drops a saved default the harness does not offer", () => {
    const claude = report("claude", ["default", "acceptEdits"]);
    expect(validChoice(claude, { mode: "acceptEdits", sandbox: null })).toEqual({ mode: "acceptEdits", sandbox: null });
    expect(validChoice(claude, { mode: "gone", sandbox: "read-only" })).toEqual({ mode: null, sandbox: null });
  });

  it("summarizes a thread's mode", () => {
    expect(modeSummary("codex", { mode: "untrusted", sandbox: "danger-full-access" })).toBe(
      "untrusted · danger-full-access",
    );
    expect(modeSummary("claude", { mode: null, sandbox: null })).toBe("default mode");
    expect(modeSummary("pi", { mode: null, sandbox: null })).toBe("runs tools without asking");
  });
});
