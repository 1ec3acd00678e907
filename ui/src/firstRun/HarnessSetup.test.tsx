// @vitest-environment jsdom
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { cleanup, fireEvent, render, waitFor } from "@testing-library/react";
import * as ipc from "../ipc";
import { store } from "../state";
import { freshWindow } from "../testing/freshWindow";
import { harnessReport, missingReport } from "../testing/harnessReport";
import { HarnessSetupList } from "./HarnessSetup";

vi.mock("../ipc", () => import("../testing/ipcMock"));
const m = vi.mocked(ipc);

beforeEach(() => {
  freshWindow();
  store.set({ doctor: [missingReport("claude"), missingReport("codex"), missingReport("pi")] });
});
afterEach(cleanup);

const card = (c: HTMLElement, name: string) => c.querySelector<HTMLElement>(`.setup-card[data-harness="${name}"]`)!;

describe("the first-run list", () => {
  it("shows each missing harness with its install command, and no variable names", () => {
    const { container } = render(<HarnessSetupList />);
    for (const name of ["claude", "codex", "pi"]) {
      expect(card(container, name).dataset.state).toBe("missing");
      expect(card(container, name).textContent).toContain("Not installed");
    }
    expect(card(container, "codex").querySelector("[data-command]")?.textContent).toContain("npm install -g @openai/codex");
    expect(container.textContent).not.toMatch(/FORKHOST_|not on PATH/);
  });

  it("uses the file the user chose, and shows the harness ready", async () => {
    m.pickFile.mockResolvedValue("/opt/pi/bin/pi");
    m.chooseHarnessPath.mockResolvedValue(harnessReport("pi", { path: "/opt/pi/bin/pi", version: "1.6.0", found_by: "override" }));
    const { container } = render(<HarnessSetupList />);
    fireEvent.click(container.querySelector('[data-action="choose-file-pi"]')!);
    await waitFor(() => expect(card(container, "pi").dataset.state).toBe("ready"));
    expect(m.chooseHarnessPath).toHaveBeenCalledWith("pi", "/opt/pi/bin/pi");
    expect(card(container, "pi").textContent).toContain("Ready · 1.6.0");
    expect(card(container, "pi").textContent).toContain("Found through the file you chose");
    expect(store.get().doctor!.map((r) => r.name)).toEqual(["claude", "codex", "pi"]);
  });

  it("says why a chosen file can't be used", async () => {
    m.pickFile.mockResolvedValue("/usr/bin/true");
    m.chooseHarnessPath.mockRejectedValue(new ipc.IpcError("invalid_input", "/usr/bin/true printed no version"));
    const { container } = render(<HarnessSetupList />);
    fireEvent.click(container.querySelector('[data-action="choose-file-codex"]')!);
    await waitFor(() => expect(container.querySelector("[data-choose-error]")).not.toBeNull());
    expect(container.querySelector("[data-choose-error]")!.textContent).toContain("printed no version");
    expect(card(container, "codex").dataset.state).toBe("missing");
  });

  it("tells a signed-out harness how to sign in", () => {
    store.set({ doctor: [missingReport("claude"), harnessReport("codex", { sign_in: "signed_out" }), missingReport("pi")] });
    const { container } = render(<HarnessSetupList />);
    expect(card(container, "codex").dataset.state).toBe("signed_out");
    expect(card(container, "codex").textContent).toContain("not signed in");
    expect(card(container, "codex").querySelector("[data-command]")?.textContent).toBe("codex login");
  });

  it("looks again on Check again and opens the install page in the browser", async () => {
    m.doctorAgain.mockResolvedValue([missingReport("claude"), missingReport("codex"), harnessReport("pi")]);
    const { container } = render(<HarnessSetupList />);
    fireEvent.click(container.querySelector('[data-action="install-page-claude"]')!);
    expect(m.openExternal).toHaveBeenCalledWith("https://example.org/claude");
    fireEvent.click(container.querySelector('[data-action="check-again"]')!);
    await waitFor(() => expect(card(container, "pi").dataset.state).toBe("ready"));
  });
});
