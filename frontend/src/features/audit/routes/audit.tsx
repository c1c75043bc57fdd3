// The audit log as sentences ("alice approved report #12 (run 3 vs base)"), searched and
// filtered by the server, a page at a time.
import { useState } from "react";
import { Link } from "react-router";

import { Card, QueryPlaceholder } from "@/components/ui/card";
import { EmptyState } from "@/components/ui/empty-state";
import { PageHeader } from "@/components/ui/page-header";
import { useCurrentTeam } from "@/lib/current-team";
import { auditSentence, describeAction, targetReference } from "@/lib/describe-event";
import { formatDateTime, formatRelative } from "@/lib/format";

import { NO_FILTERS, PAGE_SIZE, useAuditActions, useAuditLog, type AuditEntry, type AuditFilters } from "../api/get-audit-log";
import "../audit.css";

/** The kinds of object the log names (their model labels), as a person calls them. */
const OBJECT_TYPES: [string, string][] = [
  ["experiments.evaluationreport", "Report"],
  ["experiments.evaluationjob", "Evaluation"],
  ["experiments.evaluationsuite", "Evaluation suite"],
  ["experiments.experiment", "Experiment"],
  ["experiments.run", "Run"],
  ["experiments.registeredmodel", "Model"],
  ["experiments.modelversion", "Model version"],
  ["serving.deployment", "Deployment"],
  ["serving.canary", "Canary"],
  ["tasks_app.taskfamily", "Task family"],
  ["tasks_app.poolversion", "Pool version"],
  ["tasks_app.verifier", "Verifier"],
  ["tasks_app.curriculum", "Curriculum"],
  ["accounts.team", "Team"],
  ["accounts.membership", "Member"],
  ["accounts.apitoken", "API token"],
];

/** A datetime-local value ("2026-01-02T10:00", local time) as an ISO instant, "" for none. */
const isoFrom = (local: string) => (local ? new Date(local).toISOString() : "");

function Sentence({ entry }: { entry: AuditEntry }) {
  const reference = targetReference(entry);
  return (
    <span aria-label={auditSentence(entry)}>
      {entry.actor ? <strong>{entry.actor}</strong> : <span className="subtle">the system</span>}{" "}
      <span title={entry.action}>{describeAction(entry.action)}</span>{" "}
      {entry.target_path ? <Link to={entry.target_path}>{reference}</Link> : reference}
    </span>
  );
}

function Filters({ filters, onChange, actions }: { filters: AuditFilters; onChange: (f: AuditFilters) => void; actions: string[] }) {
  const set = (key: keyof AuditFilters) => (e: { target: { value: string } }) => onChange({ ...filters, [key]: e.target.value });
  const [since, setSince] = useState("");
  const [until, setUntil] = useState("");
  return (
    <form className="card-body au-filters" role="search" aria-label="Audit filters" onSubmit={(e) => e.preventDefault()}>
      <label className="field">
        Search
        <input className="input" type="search" value={filters.search} onChange={set("search")} placeholder="Name, id, action or user" />
      </label>
      <label className="field">
        Actor
        <input className="input" value={filters.actor} onChange={set("actor")} placeholder="username" />
      </label>
      <label className="field">
        Action
        <select className="select" value={filters.action} onChange={set("action")}>
          <option value="">Any action</option>
          {actions.map((a) => (
            <option key={a} value={a}>{`${describeAction(a)} (${a})`}</option>
          ))}
        </select>
      </label>
      <label className="field">
        Object type
        <select className="select" value={filters.target_type} onChange={set("target_type")}>
          <option value="">Any object</option>
          {OBJECT_TYPES.map(([value, label]) => (
            <option key={value} value={value}>{label}</option>
          ))}
        </select>
      </label>
      <label className="field">
        From
        <input className="input" type="datetime-local" value={since} onChange={(e) => { setSince(e.target.value); onChange({ ...filters, since: isoFrom(e.target.value) }); }} />
      </label>
      <label className="field">
        To
        <input className="input" type="datetime-local" value={until} onChange={(e) => { setUntil(e.target.value); onChange({ ...filters, until: isoFrom(e.target.value) }); }} />
      </label>
    </form>
  );
}

export function AuditRoute() {
  const team = useCurrentTeam().team?.slug;
  const [filters, setFilters] = useState<AuditFilters>(NO_FILTERS);
  const [page, setPage] = useState(1);
  const log = useAuditLog(team, filters, page);
  const actions = useAuditActions(team);
  const rows = log.data?.results ?? [];
  const pages = Math.max(1, Math.ceil((log.data?.count ?? 0) / PAGE_SIZE));
  const filter = (next: AuditFilters) => {
    setFilters(next);
    setPage(1);
  };
  return (
    <div className="page stack">
      <PageHeader title="Audit log" description="Who changed what in the team, newest first." />
      <Card title="Events">
        <Filters filters={filters} onChange={filter} actions={actions.data ?? []} />
        <QueryPlaceholder query={log} />
        {log.data && !rows.length && <EmptyState title="No event matches">Widen the time range or clear a filter.</EmptyState>}
        {rows.length > 0 && (
          <table className="table" aria-label="Audit events">
            <thead>
              <tr><th>What happened</th><th>When</th></tr>
            </thead>
            <tbody>
              {rows.map((entry) => (
                <tr key={entry.id}>
                  <td><Sentence entry={entry} /></td>
                  <td className="subtle" title={formatDateTime(entry.created_at)}>{formatRelative(entry.created_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        <div className="card-body row au-pager">
          <button type="button" className="btn btn-sm" disabled={page <= 1} onClick={() => setPage(page - 1)}>
            Previous
          </button>
          <span className="subtle">
            Page {page} of {pages} ({log.data?.count ?? 0} event{log.data?.count === 1 ? "" : "s"})
          </span>
          <button type="button" className="btn btn-sm" disabled={page >= pages} onClick={() => setPage(page + 1)}>
            Next
          </button>
        </div>
      </Card>
    </div>
  );
}
