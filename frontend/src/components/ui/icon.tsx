// Hand-drawn 16px stroke icons; paths on a 24-unit grid.
const PATHS = {
  overview: "M3 12l9-8 9 8M5 10v10h5v-6h4v6h5V10",
  families: "M4 6h16M4 12h16M4 18h10",
  verifiers: "M9 12l2 2 4-4M12 3l8 4v5c0 5-3.5 8-8 9-4.5-1-8-4-8-9V7z",
  curricula: "M4 19V9M10 19V5M16 19v-7M22 19H2",
  experiments: "M9 3h6M10 3v6L4 19a1 1 0 0 0 1 2h14a1 1 0 0 0 1-2l-6-10V3",
  runs: "M3 12h4l3-8 4 16 3-8h4",
  reports: "M7 3h8l4 4v14H7zM15 3v4h4M10 13h6M10 17h6",
  suites: "M10 6h10M10 12h10M10 18h10M4 6l1.5 1.5L8 5M4 12l1.5 1.5L8 11M4 18l1.5 1.5L8 17",
  registry: "M4 7l8-4 8 4v10l-8 4-8-4zM4 7l8 4 8-4M12 11v10",
  deployments: "M12 3l9 5-9 5-9-5zM3 13l9 5 9-5",
  tokens: "M15 7a4 4 0 1 1-3.9 5H3v3h3v3h3v-3h2.1A4 4 0 0 1 15 7z",
  team: "M16 19v-1a4 4 0 0 0-4-4H7a4 4 0 0 0-4 4v1M9.5 11a3.5 3.5 0 1 0 0-7 3.5 3.5 0 0 0 0 7zM21 19v-1a4 4 0 0 0-3-3.9M16 4.1a3.5 3.5 0 0 1 0 6.8",
  chevron: "M7 10l5 5 5-5",
  check: "M5 12l5 5 9-10",
  copy: "M9 9h11v11H9zM5 15H4V4h11v1",
  plus: "M12 5v14M5 12h14",
  inbox: "M3 13h5l1 3h6l1-3h5M5 5h14l2 8v6H3v-6z",
  usage: "M12 14l4-4M4.2 18a9 9 0 1 1 15.6 0z",
  audit: "M9 4h6v3H9zM7 5H5v16h14V5h-2M8 11h8M8 15h8M8 19h5",
} as const;

export type IconName = keyof typeof PATHS;

export function Icon({ name, size = 16 }: { name: IconName; size?: number }) {
  return (
    <svg
      width={size}
      height={size}
      viewBox="0 0 24 24"
      fill="none"
      stroke="currentColor"
      strokeWidth={1.8}
      strokeLinecap="round"
      strokeLinejoin="round"
      aria-hidden="true"
    >
      <path d={PATHS[name]} />
    </svg>
  );
}

export function Logo({ size = 20 }: { size?: number }) {
  return (
    <svg width={size} height={size} viewBox="0 0 32 32" aria-hidden="true">
      <rect width="32" height="32" rx="7" fill="#18181b" />
      <path
        d="M9 10h14l-3 13a2 2 0 0 1-2 1.5h-4A2 2 0 0 1 12 23z"
        fill="none"
        stroke="#f97316"
        strokeWidth="2.4"
        strokeLinejoin="round"
      />
    </svg>
  );
}
