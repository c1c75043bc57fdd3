// Promotion of the report's candidate checkpoint: possible once this version is approved,
// refused with the reason by the server otherwise (superseded, already promoted...).
import { useState } from "react";
import { Link } from "react-router";

import { RegisterInModel } from "@/components/registry/register-in-model";
import { ErrorMessage } from "@/components/ui/error-message";
import { formatDateTime } from "@/lib/format";

import { usePromoteCheckpoint, type Report } from "../api/reports";

export function PromotionPanel({ report }: { report: Report }) {
  const promote = usePromoteCheckpoint();
  const [note, setNote] = useState("");
  const checkpoint = report.candidate_checkpoint;
  const done = report.promotion;
  if (checkpoint === null) {
    return <p className="subtle">The candidate is a base model: there is no checkpoint to promote.</p>;
  }
  if (done) {
    return (
      <div className="stack">
        <p role="status" aria-label="Promotion">
          <span className="badge badge-success">Promoted</span> {done.subject} by <strong>{done.promoted_by}</strong>{" "}
          <span className="subtle">
            {formatDateTime(done.created_at)} on report v{done.report_version}
          </span>
          {done.note && <>: {done.note}</>} · <Link to={`/runs/${done.run}/checkpoints`}>run {done.run}</Link>
        </p>
        <RegisterInModel checkpoint={checkpoint} />
      </div>
    );
  }
  if (report.state !== "approved") {
    return <p className="subtle">Promoting {report.candidate_subject} needs this report approved.</p>;
  }
  return (
    <div className="stack">
      <label className="field">
        <span>Promotion note</span>
        <input value={note} onChange={(e) => setNote(e.target.value)} />
      </label>
      <button
        type="button"
        className="btn btn-primary"
        disabled={promote.isPending}
        onClick={() => promote.mutate({ checkpoint, report: report.id, note })}
      >
        Promote checkpoint
      </button>
      {promote.error && <ErrorMessage error={promote.error} />}
    </div>
  );
}
