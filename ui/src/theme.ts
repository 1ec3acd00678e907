// Light or dark: the OS decides unless Settings picks one. The dark palette is one stylesheet
// (public/dark.css) that index.html links for the OS's dark mode; a picked theme overrides the
// link's media. `html[data-theme]` names the pick for anything else that styles by it.
import type { Theme } from "./bindings/Theme";

/** When the dark palette applies, for each setting. */
const DARK_MEDIA: Record<Theme, string> = {
  system: "(prefers-color-scheme: dark)",
  dark: "all",
  light: "not all",
};

export function applyTheme(theme: Theme, doc: Document = document) {
  const root = doc.documentElement;
  if (theme === "system") delete root.dataset.theme;
  else root.dataset.theme = theme;
  const palette = doc.getElementById("dark-palette");
  if (palette instanceof HTMLLinkElement) palette.media = DARK_MEDIA[theme];
}
