import { Card, QueryPlaceholder } from "@/components/ui/card";
import type { MeTeam } from "@/lib/auth";
import { formatDateTime, formatRelative } from "@/lib/format";

import { useActivity } from "../api/get-activity";

const SHOWN = 8;

export function ActivityCard({ team }: { team: MeTeam | null }) {
  const activity = useActivity(team);
  const entries = activity.data?.slice(0, SHOWN) ?? [];

  return (
    <Card title="Recent activity" description={team ? `In ${team.name}` : "Across your teams"}>
      <QueryPlaceholder query={activity} />
      {activity.isSuccess && entries.length === 0 && (
        <div className="card-body muted">Nothing has happened here yet.</div>
      )}
      {entries.length > 0 && (
        <table className="table">
          <tbody>
            {entries.map((entry) => (
              <tr key={entry.id}>
                <td>{entry.actor ?? <span className="subtle">system</span>}</td>
                <td className="mono">{entry.action}</td>
                <td className="subtle">
                  {entry.target_type} {entry.target_id}
                </td>
                <td className="subtle" title={formatDateTime(entry.created_at)}>
                  {formatRelative(entry.created_at)}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </Card>
  );
}
