import { describe, expect, it } from "vitest";
import { harnessReport, missingReport } from "../testing/harnessReport";
import { HARNESSES } from "../harnesses";
import { noneUsable, startBlocker, statusLabel, unavailableLine, usableHarnesses } from "./words";

describe("the first-run words", () => {
  it("says what each state is, in words", () => {
    expect(statusLabel(undefined)).toBe("Looking…");
    expect(statusLabel(missingReport("codex"))).toBe("Not installed");
    expect(statusLabel(harnessReport("codex", { sign_in: "signed_out" }))).toBe("Not signed in");
    expect(statusLabel(harnessReport("pi", { version: "1.6.0" }))).toBe("Ready · 1.6.0");
    // A check that could not tell is not a reason to stop anyone.
    expect(statusLabel(harnessReport("pi", { version: "1.6.0", sign_in: "unknown" }))).toBe("Ready · 1.6.0");
  });

  it("gives an unavailable harness one line with its action, naming no variable", () => {
    const line = unavailableLine(missingReport("codex"), "codex")!;
    expect(line).toBe("Codex is not installed. Install it with npm install -g @openai/codex");
    expect(unavailableLine(harnessReport("codex", { sign_in: "signed_out" }), "codex")).toBe(
      "Codex is installed but not signed in. Run codex login in a terminal.",
    );
    expect(unavailableLine(harnessReport("claude"), "claude")).toBeNull();
    for (const name of HARNESSES) {
      expect(unavailableLine(missingReport(name), name)).not.toMatch(/FORKHOST_|PATH/);
    }
  });

  it("counts only the harnesses that can start a thread", () => {
    const doctor = [missingReport("claude"), harnessReport("codex", { sign_in: "signed_out" }), harnessReport("pi")];
    expect(usableHarnesses(doctor)).toEqual(["pi"]);
    expect(noneUsable(doctor)).toBe(false);
    expect(noneUsable([missingReport("claude"), missingReport("codex"), missingReport("pi")])).toBe(true);
    // Before the reports are in, nothing is judged.
    expect(noneUsable(null)).toBe(false);
  });

  it("says what Start thread is waiting for", () => {
    expect(startBlocker({ harness: "claude", report: missingReport("claude"), cwd: "/w" })).toBe(
      "Install Claude Code or pick another agent",
    );
    expect(startBlocker({ harness: "codex", report: harnessReport("codex", { sign_in: "signed_out" }), cwd: "/w" })).toBe(
      "Sign Codex in or pick another agent",
    );
    expect(startBlocker({ harness: "pi", report: harnessReport("pi"), cwd: "  " })).toBe("Choose a project folder");
    expect(startBlocker({ harness: "pi", report: harnessReport("pi"), cwd: "/w" })).toBeNull();
  });
});
