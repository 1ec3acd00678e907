// Small inline icons (no icon font, no network): they inherit `currentColor`.
import type { SVGProps } from "react";

type IconProps = SVGProps<SVGSVGElement>;

const base: IconProps = {
  width: 16,
  height: 16,
  viewBox: "0 0 24 24",
  fill: "none",
  stroke: "currentColor",
  strokeWidth: 2,
  strokeLinecap: "round",
  strokeLinejoin: "round",
  "aria-hidden": true,
  focusable: false,
};

/** The Forkhost mark: the app icon's fork glyph on its rounded square. */
export function LogoMark(props: IconProps) {
  return (
    <svg width={24} height={24} viewBox="0 0 1024 1024" aria-hidden focusable={false} {...props}>
      <defs>
        <linearGradient id="fh-logo-bg" x1="0" y1="0" x2="1" y2="1">
          <stop offset="0" stopColor="#6366F1" />
          <stop offset="1" stopColor="#7C3AED" />
        </linearGradient>
      </defs>
      <rect x="0" y="0" width="1024" height="1024" rx="232" fill="url(#fh-logo-bg)" />
      <g fill="none" stroke="#fff" strokeWidth="72" strokeLinecap="round" strokeLinejoin="round">
        <path d="M512 676 V560" />
        <path d="M512 560 C512 470 340 476 340 372" />
        <path d="M512 560 C512 470 684 476 684 372" />
        <circle cx="512" cy="740" r="64" />
        <circle cx="340" cy="308" r="64" />
        <circle cx="684" cy="308" r="64" />
      </g>
    </svg>
  );
}

export function PlusIcon(props: IconProps) {
  return (
    <svg {...base} {...props}>
      <path d="M12 5v14M5 12h14" />
    </svg>
  );
}

export function ThreadsIcon(props: IconProps) {
  return (
    <svg {...base} {...props}>
      <circle cx="6" cy="5" r="2" />
      <circle cx="6" cy="19" r="2" />
      <circle cx="18" cy="9" r="2" />
      <path d="M6 7v10" />
      <path d="M6 15c0-4 12-2 12-4" />
    </svg>
  );
}

export function ChatIcon(props: IconProps) {
  return (
    <svg {...base} {...props}>
      <path d="M21 12a8 8 0 0 1-11.6 7.14L4 20l1.05-4.2A8 8 0 1 1 21 12Z" />
      <path d="M9 11h6M9 14h4" />
    </svg>
  );
}
