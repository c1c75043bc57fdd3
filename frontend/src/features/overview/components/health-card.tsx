import { Card, QueryPlaceholder } from "@/components/ui/card";

import { useHealth } from "../api/get-health";

const CHECK_LABELS: Record<string, string> = {
  database: "Database",
  broker: "Task broker",
  channel_layer: "Live updates",
  sandbox: "Sandbox",
};

/** One line for a check's detail: its text, its warnings, or the capabilities it reports on. */
export function describeDetail(detail: unknown): string {
  if (detail === undefined || detail === null) return "";
  if (typeof detail !== "object") return String(detail);
  const report = detail as Record<string, unknown>;
  if (Array.isArray(report.warnings) && report.warnings.length > 0) {
    return report.warnings.map(String).join("; ");
  }
  const enabled = Object.entries(report).filter(([, value]) => value === true);
  return enabled.length > 0 ? enabled.map(([key]) => key.replaceAll("_", " ")).join(", ") : "";
}

function StatusBadge({ status }: { status: "ok" | "degraded" }) {
  return status === "ok" ? (
    <span className="badge badge-success">All systems normal</span>
  ) : (
    <span className="badge badge-danger">Degraded</span>
  );
}

export function HealthCard() {
  const health = useHealth();
  return (
    <Card title="System health" actions={health.data && <StatusBadge status={health.data.status} />}>
      <QueryPlaceholder query={health} />
      {health.data && (
        <table className="table">
          <tbody>
            {Object.entries(health.data.checks).map(([name, check]) => (
              <tr key={name}>
                <td>
                  <span className="row">
                    <span className={check.ok ? "dot dot-live" : "dot dot-danger"} aria-hidden="true" />
                    {CHECK_LABELS[name] ?? name}
                  </span>
                </td>
                <td className="muted">{check.ok ? "OK" : "Failing"}</td>
                <td className="subtle" style={{ whiteSpace: "normal" }}>
                  {describeDetail(check.detail)}
                </td>
                <td className="subtle mono">{check.ms !== undefined && `${check.ms} ms`}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </Card>
  );
}
