import { NavLink } from "react-router";

import { Icon, type IconName } from "@/components/ui/icon";

type NavItem = { to: string; label: string; icon: IconName; end?: boolean };

const SECTIONS: { heading: string; items: NavItem[] }[] = [
  {
    heading: "Workspace",
    items: [
      { to: "/", label: "Overview", icon: "overview", end: true },
      { to: "/task-families", label: "Task families", icon: "families" },
      { to: "/verifiers", label: "Verifiers", icon: "verifiers" },
      { to: "/curricula", label: "Curricula", icon: "curricula" },
      { to: "/experiments", label: "Experiments", icon: "experiments" },
      { to: "/runs", label: "Runs", icon: "runs" },
      { to: "/reports", label: "Reports", icon: "reports" },
      { to: "/evaluation-suites", label: "Evaluation suites", icon: "suites" },
      { to: "/registry", label: "Models", icon: "registry" },
      { to: "/deployments", label: "Deployments", icon: "deployments" },
    ],
  },
  {
    heading: "Settings",
    items: [
      { to: "/settings/tokens", label: "API tokens", icon: "tokens" },
      { to: "/settings/team", label: "Team", icon: "team" },
      { to: "/usage", label: "Usage and cost", icon: "usage" },
      { to: "/audit", label: "Audit log", icon: "audit" },
    ],
  },
];

export function Sidebar() {
  return (
    <nav className="sidebar" aria-label="Main">
      {SECTIONS.map((section) => (
        <div className="nav-section" key={section.heading}>
          <div className="nav-heading">{section.heading}</div>
          <ul className="nav-list">
            {section.items.map((item) => (
              <li key={item.to}>
                <NavLink to={item.to} end={item.end} className="nav-link">
                  <Icon name={item.icon} />
                  {item.label}
                </NavLink>
              </li>
            ))}
          </ul>
        </div>
      ))}
    </nav>
  );
}
