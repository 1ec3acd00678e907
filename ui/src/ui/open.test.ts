import { beforeEach, describe, expect, it, vi } from "vitest";
import * as ipc from "../ipc";
import { freshWindow } from "../testing/freshWindow";
import { hideMenu, showMenu } from "./menu";
import { store } from "../state";
import { closeDialog, loadDoctor, openDialog, saveSettings } from "./open";

vi.mock("../ipc", () => import("../testing/ipcMock"));
const m = vi.mocked(ipc);

beforeEach(() => {
  freshWindow();
  m.doctor.mockResolvedValue([]);
});

describe("dialogs", () => {
  it("one at a time; opening one closes the menu; Settings and New thread read the harnesses", async () => {
    showMenu({ x: 1, y: 2, items: ["separator"] });
    openDialog({ kind: "update" });
    expect(store.get()).toMatchObject({ dialog: { kind: "update" }, menu: null });
    expect(m.doctor).not.toHaveBeenCalled();
    openDialog({ kind: "settings" });
    await vi.waitFor(() => expect(store.get().doctor).toEqual([]));
    closeDialog();
    expect(store.get().dialog).toBeNull();
  });

  it("read the harnesses once unless asked again, saying when they cannot", async () => {
    await loadDoctor();
    await loadDoctor();
    expect(m.doctor).toHaveBeenCalledTimes(1);
    m.doctor.mockRejectedValue(new Error("broken"));
    await loadDoctor(true);
    expect(store.get().toasts[0]?.title).toMatch(/^Harnesses: /);
  });

  it("save settings only when the app took them", async () => {
    const settings = { ...store.get().settings, theme: "light" as const };
    m.saveSettings.mockRejectedValue(new Error("read-only"));
    expect(await saveSettings(settings)).toBe(false);
    expect(store.get().settings.theme).toBe("system");
    m.saveSettings.mockResolvedValue(undefined);
    expect(await saveSettings(settings)).toBe(true);
    expect(store.get().settings).toBe(settings);
  });
});

describe("the context menu", () => {
  it("shows one and hides it (no store change when none shows)", () => {
    const listener = vi.fn();
    const stop = store.subscribe(listener);
    hideMenu();
    expect(listener).not.toHaveBeenCalled();
    showMenu({ x: 0, y: 0, items: [] });
    hideMenu();
    expect(store.get().menu).toBeNull();
    expect(listener).toHaveBeenCalledTimes(2);
    stop();
  });
});
