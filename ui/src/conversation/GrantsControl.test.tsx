// @vitest-environment jsdom
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { act, cleanup, fireEvent, render, waitFor } from "@testing-library/react";
import * as ipc from "../ipc";
import type { GrantView } from "../bindings/GrantView";
import { store } from "../state";
import { freshWindow } from "../testing/freshWindow";
import { GrantsControl, grantsLabel } from "./GrantsControl";

vi.mock("../ipc", () => import("../testing/ipcMock"));
const m = vi.mocked(ipc);

const grant = (id: string, words: string): GrantView => ({
  id,
  words,
  scope: { kind: "command", command: words, cwd: "/w" },
  granted_at: 1,
});

beforeEach(() => {
  freshWindow();
  m.sessionGrants.mockReset().mockResolvedValue([]);
  m.revokeGrant.mockReset().mockResolvedValue(undefined);
});
afterEach(cleanup);

describe("the header's session rules", () => {
  it("counts in words", () => {
    expect(grantsLabel(1)).toBe("1 rule for this session");
    expect(grantsLabel(2)).toBe("2 rules for this session");
  });

  it("shows nothing without grants, and reads them when the header shows", async () => {
    const { container } = render(<GrantsControl threadId="t1" />);
    expect(m.sessionGrants).toHaveBeenCalledWith("t1");
    expect(container.querySelector("[data-grants-control]")).toBeNull();
    m.sessionGrants.mockResolvedValue([grant("g1", "run `touch a` in /w")]);
    act(() => store.set({ grants: { t1: [grant("g1", "run `touch a` in /w")] } }));
    expect(container.textContent).toContain("1 rule for this session");
  });

  it("lists each rule and revokes the one clicked", async () => {
    m.sessionGrants.mockResolvedValue([grant("g1", "run `a`"), grant("g2", "run `b\u001b[2K`")]);
    const { container } = render(<GrantsControl threadId="t1" />);
    await waitFor(() => expect(container.textContent).toContain("2 rules for this session"));
    fireEvent.click(container.querySelector('[data-action="show-grants"]')!);
    const items = container.querySelectorAll("[data-grant-id]");
    expect(items.length).toBe(2);
    expect(items[1]!.textContent).toContain("\\x1b[2K");
    m.sessionGrants.mockResolvedValue([grant("g1", "run `a`")]);
    fireEvent.click(items[1]!.querySelector('[data-action="revoke-grant"]')!);
    expect(m.revokeGrant).toHaveBeenCalledWith("t1", "g2");
    await waitFor(() => expect(container.textContent).toContain("1 rule for this session"));
  });
});
