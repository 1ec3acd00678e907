// @vitest-environment jsdom
import { afterEach, describe, expect, it } from "vitest";
import { cleanup, fireEvent, render } from "@testing-library/react";
import { CLIP_CHARS, CLIP_LINES, ToolBlock, clip } from "./ToolBlock";

afterEach(cleanup);

describe("clip", () => {
  it("keeps the first lines, or the first characters, of long text", () => {
    const lines = Array.from({ length: 100 }, (_, i) => `line ${i}`).join("\n");
    const byLines = clip(lines);
    expect(byLines.cut).toBe(true);
    expect(byLines.shown.split("\n")).toHaveLength(CLIP_LINES);
    const wide = "x".repeat(CLIP_CHARS * 3);
    expect(clip(wide)).toEqual({ shown: "x".repeat(CLIP_CHARS), cut: true });
    expect(clip("short\ntext")).toEqual({ shown: "short\ntext", cut: false });
    const exactly = Array.from({ length: CLIP_LINES }, () => "l").join("\n");
    expect(clip(exactly).cut).toBe(false);
  });
});

describe("ToolBlock", () => {
  it("shows a long output clipped, and all of it on Show all", () => {
    const output = Array.from({ length: 500 }, (_, i) => `out ${i}`).join("\n");
    const { container } = render(
      <ToolBlock name="Bash" input={{ command: "seq 500" }} output={output} isError={false} />,
    );
    fireEvent.click(container.querySelector(".tool__head")!);
    const pres = container.querySelectorAll("pre.tool__pre");
    expect(pres).toHaveLength(2);
    expect(pres[1]?.textContent?.split("\n")).toHaveLength(CLIP_LINES);
    const more = container.querySelectorAll('[data-action="show-all"]');
    expect(more).toHaveLength(1);
    expect(more[0]?.textContent).toContain("500 lines");
    fireEvent.click(more[0]!);
    expect(container.querySelectorAll("pre.tool__pre")[1]?.textContent).toBe(output);
    expect(container.querySelector('[data-action="show-all"]')).toBeNull();
  });

  it("clips a large input too", () => {
    const input = { command: "x", content: "y".repeat(20_000) };
    const { container } = render(<ToolBlock name="Write" input={input} output={null} isError={false} />);
    fireEvent.click(container.querySelector(".tool__head")!);
    const pre = container.querySelector("pre.tool__pre");
    expect(pre?.textContent?.length).toBeLessThanOrEqual(CLIP_CHARS);
    expect(container.querySelector('[data-action="show-all"]')).toBeTruthy();
  });
});
