import { Link } from "react-router";

import { Card, QueryPlaceholder } from "@/components/ui/card";
import type { MeTeam } from "@/lib/auth";

import { useTeamSummary, type TeamSummary } from "../api/get-team-summary";
import { useTeamWork } from "../api/get-team-work";

const COUNTS: { key: keyof Omit<TeamSummary, "team">; label: string; to: string }[] = [
  { key: "families", label: "Task families", to: "/task-families" },
  { key: "pool_versions", label: "Pool versions", to: "/task-families" },
  { key: "verifiers", label: "Verifiers", to: "/verifiers" },
  { key: "curricula", label: "Curricula", to: "/curricula" },
];

/** The experiments and runs, from their own lists: "—" until (or unless) those answer. */
function WorkCounts({ team }: { team: MeTeam }) {
  const work = useTeamWork(team);
  const counts = [
    { label: "Experiments", to: "/experiments", value: work.data?.experiments },
    { label: "Runs", to: "/runs", value: work.data?.runs },
  ];
  return (
    <>
      {counts.map(({ label, to, value }) => (
        <div key={label} className="ov-count">
          <dt>
            <Link to={to}>{label}</Link>
          </dt>
          <dd className={value === undefined ? "subtle" : undefined}>{value ?? "—"}</dd>
        </div>
      ))}
    </>
  );
}

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
            <WorkCounts team={team} />
          </dl>
        </div>
      )}
    </Card>
  );
}
