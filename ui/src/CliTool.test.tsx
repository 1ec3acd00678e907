import { afterEach, describe, expect, it, vi } from "vitest";
import { cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import * as ipc from "./ipc";
import type { CliToolStatus } from "./bindings/CliToolStatus";
import { CliToolSection, cliToolState } from "./CliTool";

vi.mock("./ipc", async () => {
  // The real error class (errors.ts tests `instanceof` it); every call is a mock.
  const { IpcError } = await vi.importActual<typeof import("./ipc")>("./ipc");
  return {
    IpcError,
    inApp: () => true,
    cliToolStatus: vi.fn(),
    cliToolInstall: vi.fn(),
    cliToolUninstall: vi.fn(),
  };
});

const m = vi.mocked(ipc);

const TARGET = "/home/me/.local/bin/forkhost";

function st(over: Partial<CliToolStatus> = {}): CliToolStatus {
  return {
    kind: "symlink",
    bundled: "/opt/forkhost/forkhost",
    looked_at: "/opt/forkhost/forkhost",
    bundled_version: "forkhost 0.1.0",
    target: TARGET,
    installed: false,
    installed_path: null,
    installed_version: null,
    outdated: false,
    conflict: null,
    can_install: true,
    can_uninstall: false,
    needs_admin: false,
    warnings: [],
    ...over,
  };
}

const installed = (over: Partial<CliToolStatus> = {}) =>
  st({
    installed: true,
    installed_path: TARGET,
    installed_version: "forkhost 0.1.0",
    can_install: false,
    can_uninstall: true,
    ...over,
  });

const notOnPath = {
  code: "not_on_path",
  message: "~/.local/bin is not on your PATH, so terminals won't find `forkhost` there.",
};

function section() {
  return document.querySelector<HTMLElement>("[data-cli-tool-status]")!;
}

async function shows(state: string) {
  await waitFor(() => expect(section().dataset.cliToolStatus).toBe(state));
}

function button(action: string) {
  return document.querySelector<HTMLButtonElement>(`[data-action="${action}"]`);
}

afterEach(() => {
  cleanup();
  vi.clearAllMocks();
});

describe("CliToolSection", () => {
  it("installs, shows the installed version and the PATH warning, then uninstalls", async () => {
    m.cliToolStatus.mockResolvedValue(st({ warnings: [notOnPath] }));
    m.cliToolInstall.mockResolvedValue(installed({ warnings: [notOnPath] }));
    m.cliToolUninstall.mockResolvedValue(st({ warnings: [notOnPath] }));
    render(<CliToolSection />);

    expect(screen.getByRole("heading", { name: "Command-line tool" })).toBeTruthy();
    await shows("not_installed");
    expect(section().textContent).toContain("Not installed");
    expect(section().textContent).toContain(TARGET);
    expect(button("cli-tool-uninstall")).toBeNull();
    expect(document.querySelector('[data-cli-tool-warning="not_on_path"]')?.textContent).toContain(
      "not on your PATH",
    );

    fireEvent.click(button("cli-tool-install")!);
    await shows("installed");
    expect(m.cliToolInstall).toHaveBeenCalledWith(false);
    expect(document.querySelector("[data-cli-tool-version]")?.getAttribute("data-cli-tool-version")).toBe(
      "forkhost 0.1.0",
    );
    expect(section().textContent).toContain(`Installed at ${TARGET}`);
    expect(document.querySelector('[data-cli-tool-warning="not_on_path"]')).not.toBeNull();
    expect(button("cli-tool-install")).toBeNull();

    fireEvent.click(button("cli-tool-uninstall")!);
    await shows("not_installed");
    expect(m.cliToolUninstall).toHaveBeenCalledTimes(1);
    expect(document.querySelector("[data-cli-tool-version]")).toBeNull();
  });

  it("asks before replacing a foreign forkhost, and keeps it when told to", async () => {
    const conflict = st({
      conflict: { path: TARGET, detail: "a file that is not this app's command-line tool", replaceable: true },
    });
    m.cliToolStatus.mockResolvedValue(conflict);
    m.cliToolInstall.mockResolvedValue(installed());
    render(<CliToolSection />);
    await shows("conflict");
    expect(section().textContent).toContain("already taken by a file that is not this app's command-line tool");

    fireEvent.click(button("cli-tool-install")!);
    expect(m.cliToolInstall).not.toHaveBeenCalled();
    expect(document.querySelector("[data-cli-tool-confirm]")).not.toBeNull();
    expect(button("cli-tool-install")!.disabled).toBe(true);

    fireEvent.click(button("cli-tool-cancel")!);
    expect(document.querySelector("[data-cli-tool-confirm]")).toBeNull();
    expect(m.cliToolInstall).not.toHaveBeenCalled();

    fireEvent.click(button("cli-tool-install")!);
    fireEvent.click(button("cli-tool-replace")!);
    await shows("installed");
    expect(m.cliToolInstall).toHaveBeenCalledWith(true);
    expect(m.cliToolInstall).toHaveBeenCalledTimes(1);
    expect(document.querySelector("[data-cli-tool-confirm]")).toBeNull();
  });

  it("turns a conflict found at install time into the confirm step", async () => {
    m.cliToolStatus
      .mockResolvedValueOnce(st())
      .mockResolvedValueOnce(
        st({ conflict: { path: TARGET, detail: "a link to /opt/x/forkhost", replaceable: true } }),
      );
    m.cliToolInstall.mockRejectedValueOnce(new ipc.IpcError("conflict", "taken"));
    render(<CliToolSection />);
    await shows("not_installed");
    fireEvent.click(button("cli-tool-install")!);
    await waitFor(() => expect(document.querySelector("[data-cli-tool-confirm]")).not.toBeNull());
    expect(section().dataset.cliToolStatus).toBe("conflict");
    expect(document.querySelector("[data-cli-tool-error]")).toBeNull();
  });

  it("never offers to replace a folder", async () => {
    m.cliToolStatus.mockResolvedValue(
      st({ can_install: false, conflict: { path: TARGET, detail: "a folder", replaceable: false } }),
    );
    render(<CliToolSection />);
    await shows("conflict");
    expect(section().textContent).toContain("Move it away");
    expect(button("cli-tool-install")).toBeNull();
  });

  it("offers Update for an older copy", async () => {
    m.cliToolStatus.mockResolvedValue(
      installed({ kind: "copy", outdated: true, can_install: true, installed_version: "forkhost 0.0.9" }),
    );
    render(<CliToolSection />);
    await shows("outdated");
    expect(button("cli-tool-install")!.textContent).toBe("Update");
    expect(section().textContent).toContain("An older Forkhost command-line tool");
    expect(document.querySelector("[data-cli-tool-version]")?.textContent).toContain("forkhost 0.0.9");
  });

  it("says where a packaged CLI is and offers nothing", async () => {
    m.cliToolStatus.mockResolvedValue(
      installed({ kind: "packaged", target: "/usr/bin/forkhost", installed_path: "/usr/bin/forkhost", can_uninstall: false }),
    );
    render(<CliToolSection />);
    await shows("packaged");
    expect(section().textContent).toContain("Installed with the package at /usr/bin/forkhost");
    expect(button("cli-tool-install")).toBeNull();
    expect(button("cli-tool-uninstall")).toBeNull();
  });

  it("describes the Windows user Path and the restart warning", async () => {
    m.cliToolStatus.mockResolvedValue(
      installed({
        kind: "user_path",
        target: "C:\\Program Files\\Forkhost",
        installed_path: "C:\\Program Files\\Forkhost\\forkhost.exe",
        warnings: [{ code: "restart_terminals", message: "Open a new terminal." }],
      }),
    );
    render(<CliToolSection />);
    await shows("installed");
    expect(section().textContent).toContain("C:\\Program Files\\Forkhost is on your user Path");
    expect(document.querySelector('[data-cli-tool-warning="restart_terminals"]')).not.toBeNull();
  });

  it("says when the app has no CLI beside it", async () => {
    m.cliToolStatus.mockResolvedValue(
      st({ kind: "none", bundled: null, bundled_version: null, target: null, can_install: false }),
    );
    render(<CliToolSection />);
    await shows("missing");
    expect(section().textContent).toContain("no command-line tool beside it");
    expect(button("cli-tool-install")).toBeNull();
  });

  it("shows a failed install in words and keeps the buttons", async () => {
    m.cliToolStatus.mockResolvedValue(st({ kind: "symlink", needs_admin: true }));
    m.cliToolInstall.mockRejectedValue(
      new ipc.IpcError("cli_tool", "Cancelled: no administrator password was given, so nothing was changed."),
    );
    render(<CliToolSection />);
    await shows("not_installed");
    expect(section().textContent).toContain("administrator password");
    fireEvent.click(button("cli-tool-install")!);
    await waitFor(() =>
      expect(document.querySelector("[data-cli-tool-error]")?.textContent).toContain("Cancelled"),
    );
    expect(button("cli-tool-install")!.disabled).toBe(false);
  });

  it("shows a status that could not be read", async () => {
    m.cliToolStatus.mockRejectedValue(new ipc.IpcError("internal", "not running inside the Forkhost app"));
    render(<CliToolSection />);
    await shows("error");
    expect(document.querySelector("[data-cli-tool-error]")?.textContent).toContain("not running inside");
  });
});

describe("cliToolState", () => {
  it("names each state", () => {
    expect(cliToolState(null, false)).toBe("loading");
    expect(cliToolState(null, true)).toBe("error");
    expect(cliToolState(st(), false)).toBe("not_installed");
    expect(cliToolState(installed(), false)).toBe("installed");
    expect(cliToolState(installed({ outdated: true }), false)).toBe("outdated");
  });
});
