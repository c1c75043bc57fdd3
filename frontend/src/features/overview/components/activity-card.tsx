import { Link } from "react-router";

import { Card, QueryPlaceholder } from "@/components/ui/card";
import type { MeTeam } from "@/lib/auth";
import { formatDateTime, formatRelative } from "@/lib/format";

import { useActivity, type AuditEntry } from "../api/get-activity";
import { describeAction, targetName } from "@/lib/describe-event";

const SHOWN = 8;

/** "ada created task family “Arithmetic”", the name linking to its page while it exists. */
function EventSentence({ entry }: { entry: AuditEntry }) {
  const name = targetName(entry);
  return (
    <span className="ov-event">
      {entry.actor ? <strong>{entry.actor}</strong> : <span className="subtle">system</span>}{" "}
      <span title={entry.action}>{describeAction(entry.action)}</span>
      {" “"}
      {entry.target_path ? <Link to={entry.target_path}>{name}</Link> : name}
      {"”"}
    </span>
  );
}

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
                <td>
                  <EventSentence entry={entry} />
                </td>
                <td className="subtle ov-when" title={formatDateTime(entry.created_at)}>
                  {formatRelative(entry.created_at)}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {activity.isSuccess && entries.length > 0 && (
        <div className="card-body">
          <Link to="/audit">The whole audit log</Link>
        </div>
      )}
    </Card>
  );
}
