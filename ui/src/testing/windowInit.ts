// A window's `window_init` reply for the UI's unit tests: the main window, no tabs.
import type { WindowInit } from "../bindings/WindowInit";

export function windowInit(over: Partial<WindowInit> = {}): WindowInit {
  return {
    label: "main",
    main: true,
    tabs: [],
    active_tab: null,
    prefill: null,
    focus_composer: false,
    seed: null,
    spare: false,
    ...over,
  };
}
