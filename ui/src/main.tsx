import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { App } from "./App";
import { installDropGuard } from "./navigation";
import "./styles.css";

// Before the first render: a link or file dropped at any moment must not replace the app.
installDropGuard(window);

const root = document.getElementById("root");
if (!root) {
  throw new Error("index.html has no #root element");
}
createRoot(root).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
