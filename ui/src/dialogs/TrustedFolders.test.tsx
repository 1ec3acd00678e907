import { fireEvent, render, waitFor } from "@testing-library/react";
import { beforeEach, describe, expect, it, vi } from "vitest";

vi.mock("../ipc", async () => import("../testing/ipcMock"));
import * as ipc from "../ipc";
import { TrustedFoldersSection } from "./TrustedFolders";

const m = vi.mocked(ipc);

describe("Settings ▸ Trusted folders", () => {
  beforeEach(() => vi.clearAllMocks());

  it("lists the answers and revokes one", async () => {
    m.trustedFolders
      .mockResolvedValueOnce([
        { folder: "/a", trusted: true, decided_at: 1 },
        { folder: "/b", trusted: false, decided_at: 2 },
      ])
      .mockResolvedValueOnce([{ folder: "/b", trusted: false, decided_at: 2 }]);
    const view = render(<TrustedFoldersSection />);
    await waitFor(() => expect(view.container.querySelectorAll("[data-trusted-folder]").length).toBe(2));
    expect(view.container.querySelector('[data-trusted-folder="/b"]')?.textContent).toContain("not trusted");
    const revoke = view.container.querySelector('[data-trusted-folder="/a"] [data-action="revoke-trust"]');
    fireEvent.click(revoke as Element);
    await waitFor(() => expect(m.revokeFolderTrust).toHaveBeenCalledWith("/a"));
    await waitFor(() => expect(view.container.querySelectorAll("[data-trusted-folder]").length).toBe(1));
  });
});
