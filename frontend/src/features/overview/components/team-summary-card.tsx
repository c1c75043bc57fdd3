import { Link } from "react-router";

import { Card, QueryPlaceholder } from "@/components/ui/card";
import type { MeTeam } from "@/lib/auth";

import { useTeamSummary, type TeamSummary } from "../api/get-team-summary";

const COUNTS: { key: keyof Omit<TeamSummary, "team">; label: string; to: string }[] = [
  { key: "families", label: "Task families", to: "/task-families" },
  { key: "pool_versions", label: "Pool versions", to: "/task-families" },
  { key: "verifiers", label: "Verifiers", to: "/verifiers" },
  { key: "curricula", label: "Curricula", to: "/curricula" },
];

export function TeamSummaryCard({ team }: { team: MeTeam }) {
  const summary = useTeamSummary(team);
  return (
    <Card title="At a glance" description={`In ${team.name}`}>
      <QueryPlaceholder query={summary} />
      {summary.data && (
        <div className="card-body">
          <dl className="ov-counts">
            {COUNTS.map(({ key, label, to }) => (
              <div key={key} className="ov-count">
                <dt>
                  <Link to={to}>{label}</Link>
                </dt>
                <dd>{summary.data[key]}</dd>
              </div>
            ))}
            <div className="ov-count ov-count-later">
              <dt>Experiments</dt>
              <dd className="subtle">coming with runs</dd>
            </div>
          </dl>
        </div>
      )}
    </Card>
  );
}
