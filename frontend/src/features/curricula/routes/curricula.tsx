import { Link } from "react-router";

import { Card, QueryPlaceholder } from "@/components/ui/card";
import { EmptyState } from "@/components/ui/empty-state";
import { Icon } from "@/components/ui/icon";
import { PageHeader } from "@/components/ui/page-header";
import { useCurrentTeam } from "@/lib/current-team";
import { formatDateTime, formatRelative } from "@/lib/format";

import { useCurricula } from "../api/get-curricula";
import type { Curriculum } from "../api/types";
import { bandOf } from "../components/config-state";
import "../curricula.css";

function percentBand(config: Curriculum["config"]): string {
  const [lo, hi] = bandOf(config);
  return `${Math.round(lo * 100)}–${Math.round(hi * 100)}%`;
}

export function CurriculaRoute() {
  const { team } = useCurrentTeam();
  const curricula = useCurricula();
  const now = new Date();
  const newButton = (
    <Link className="btn btn-primary" to="/curricula/new">
      <Icon name="plus" size={14} />
      New curriculum
    </Link>
  );
  return (
    <>
      <PageHeader
        title="Curricula"
        description="A curriculum decides which difficulties and families to train on, and shifts them to keep the success rate slightly above the model’s current ability."
        actions={newButton}
      />
      <Card title="Curricula" description={curricula.data ? `${curricula.data.length} in ${team?.name ?? "your teams"}` : undefined}>
        <QueryPlaceholder query={curricula} />
        {curricula.data?.length === 0 && (
          <div className="card-body">
            <EmptyState title="No curricula yet" icon="curricula" action={newButton}>
              Mix pool versions, choose a target success band, and preview how the distribution moves.
            </EmptyState>
          </div>
        )}
        {curricula.data && curricula.data.length > 0 && (
          <div className="table-wrap">
            <table className="table">
              <thead>
                <tr>
                  <th>Name</th>
                  <th>Families</th>
                  <th>Band</th>
                  <th>Policy</th>
                  <th>Revision</th>
                  <th>Updated</th>
                </tr>
              </thead>
              <tbody>
                {curricula.data.map((c) => (
                  <tr key={c.id}>
                    <td>
                      <Link to={`/curricula/${c.id}`}>{c.name}</Link>
                      {c.description && <div className="subtle" style={{ fontSize: "var(--text-sm)" }}>{c.description}</div>}
                    </td>
                    <td>{c.config.families?.length ?? 0}</td>
                    <td>{percentBand(c.config)}</td>
                    <td>{c.config.dynamic === false ? <span className="badge">Static</span> : <span className="badge badge-accent">Dynamic</span>}</td>
                    <td>{c.revision}</td>
                    <td title={formatDateTime(c.updated_at)}>{formatRelative(c.updated_at, now)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </Card>
    </>
  );
}
