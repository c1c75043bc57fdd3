import { Link } from "react-router";

import { Card } from "@/components/ui/card";
import type { MeTeam } from "@/lib/auth";

export function TeamsCard({
  teams,
  current,
  onSelect,
}: {
  teams: MeTeam[];
  current: string | null;
  onSelect: (slug: string) => void;
}) {
  return (
    <Card
      title="Your teams"
      actions={
        <Link to="/settings/team" className="btn btn-sm">
          Manage
        </Link>
      }
    >
      {teams.length === 0 ? (
        <div className="card-body muted">
          You are not in a team yet. <Link to="/settings/team">Create one</Link> to start.
        </div>
      ) : (
        <table className="table">
          <tbody>
            {teams.map((team) => (
              <tr key={team.slug}>
                <td>
                  <strong>{team.name}</strong> <span className="subtle mono">{team.slug}</span>
                </td>
                <td>
                  <span className={team.role === "admin" ? "badge badge-accent" : "badge"}>
                    {team.role}
                  </span>
                </td>
                <td className="cell-actions">
                  {team.slug === current ? (
                    <span className="badge badge-success">Current</span>
                  ) : (
                    <button type="button" className="btn btn-sm" onClick={() => onSelect(team.slug)}>
                      Switch to {team.name}
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </Card>
  );
}
