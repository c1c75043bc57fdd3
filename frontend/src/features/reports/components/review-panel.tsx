// Review bound to this frozen report version: submit a draft, approve or request changes
// (by the roles the team's rule names, counted against it; over a regressed family only with
// a written override reason), and comment on the report, one family row or one plot, in threads.
import { useState, type FormEvent } from "react";

import { ErrorMessage } from "@/components/ui/error-message";
import { useMe } from "@/lib/auth";
import { formatDateTime } from "@/lib/format";

import {
  useCommentOnReport,
  useReviewReport,
  useSubmitReport,
  type Report,
  type ReportComment,
  type ReportReview,
  type ReviewInput,
} from "../api/reports";

const STATE_LABEL: Record<Report["state"], string> = {
  draft: "Draft",
  in_review: "In review",
  approved: "Approved",
  changes_requested: "Changes requested",
};

function ReviewItem({ review, regressed }: { review: ReportReview; regressed: string[] }) {
  return (
    <li>
      <strong>{review.reviewer}</strong> {review.decision === "approve" ? "approved" : "requested changes"}
      {review.note && <>: {review.note}</>} <span className="subtle">{formatDateTime(review.created_at)}</span>
      {review.override_reason && (
        <p className="rp-override" aria-label="Regression override">
          Overrode the regression of {regressed.join(", ")}: {review.override_reason}
        </p>
      )}
    </li>
  );
}

function Decisions({ report }: { report: Report }) {
  const me = useMe().data;
  const submit = useSubmitReport(report.id);
  const review = useReviewReport(report.id);
  const [note, setNote] = useState("");
  const [override, setOverride] = useState("");
  const approvals = report.reviews.filter((r) => r.decision === "approve").length;
  const author = report.created_by === me?.username;
  const role = me?.teams.find((t) => t.slug === report.team)?.role;
  const reviewer = role !== undefined && report.approver_roles.includes(role);
  const regressed = report.regressed_families;
  const mayReview = report.state === "in_review" && reviewer && (!author || report.authors_may_approve);
  // An approval over a regression must say why, in its own words, not in the note.
  const mayApprove = regressed.length === 0 || override.trim() !== "";
  const decide = (decision: ReviewInput["decision"]) =>
    review.mutate({ decision, note, override_reason: decision === "approve" && regressed.length ? override : "" });
  return (
    <div className="stack">
      <p>
        <span className={`rp-state rp-state-${report.state}`} aria-label="Review state">{STATE_LABEL[report.state]}</span>{" "}
        <span className="subtle">
          {approvals} of {report.required_approvals} approval{report.required_approvals === 1 ? "" : "s"}
          {" "}· reviewed by {report.approver_roles.join(" and ")}
          {report.authors_may_approve ? "" : " · authors may not approve"}
        </span>
      </p>
      {report.state === "draft" && (
        <button type="button" className="btn btn-primary" onClick={() => submit.mutate(undefined)} disabled={submit.isPending}>
          Submit for review
        </button>
      )}
      {mayReview && (
        <div className="stack">
          <label className="field">
            <span>Note</span>
            <input value={note} onChange={(e) => setNote(e.target.value)} />
          </label>
          {regressed.length > 0 && (
            <div className="field">
              <label className="field">
                <span>Override reason</span>
                <textarea value={override} onChange={(e) => setOverride(e.target.value)} rows={2} />
              </label>
              <span className="subtle">{regressed.join(", ")} regressed: approving needs a written reason, shown here and kept with a promoted model.</span>
            </div>
          )}
          <div className="row">
            <button type="button" className="btn btn-primary" disabled={!mayApprove} onClick={() => decide("approve")}>
              {regressed.length ? "Approve over the regression" : "Approve"}
            </button>
            <button type="button" className="btn" onClick={() => decide("request_changes")}>
              Request changes
            </button>
          </div>
        </div>
      )}
      {report.state === "in_review" && !reviewer && (
        <p className="subtle">The team's review policy lets {report.approver_roles.join(" and ")} review; you may comment.</p>
      )}
      {report.state === "in_review" && reviewer && author && !report.authors_may_approve && (
        <p className="subtle">The team does not let a report's author review it.</p>
      )}
      {(submit.error || review.error) && <ErrorMessage error={submit.error ?? review.error} />}
      <ul className="rp-reviews" aria-label="Reviews">
        {report.reviews.map((r) => <ReviewItem key={r.id} review={r} regressed={regressed} />)}
      </ul>
    </div>
  );
}

function Thread({ comment, replies, onReply, chartTitle }: { comment: ReportComment; replies: ReportComment[]; onReply: (c: ReportComment) => void; chartTitle: (key: string) => string }) {
  return (
    <li className="rp-comment">
      <div>
        <strong>{comment.author}</strong>
        {comment.family && <span className="rp-family-tag">{comment.family}</span>}
        {comment.chart && <span className="rp-family-tag">plot: {chartTitle(comment.chart)}</span>}{" "}
        <span className="subtle">{formatDateTime(comment.created_at)}</span>
      </div>
      <p>{comment.body}</p>
      <button type="button" className="btn btn-sm" onClick={() => onReply(comment)}>Reply</button>
      {replies.length > 0 && (
        <ul className="rp-replies">
          {replies.map((r) => (
            <li key={r.id} className="rp-comment">
              <div><strong>{r.author}</strong> <span className="subtle">{formatDateTime(r.created_at)}</span></div>
              <p>{r.body}</p>
            </li>
          ))}
        </ul>
      )}
    </li>
  );
}

function Comments({ report }: { report: Report }) {
  const post = useCommentOnReport(report.id);
  const [body, setBody] = useState("");
  // "family:<name>" or "chart:<key>"; empty for the whole report.
  const [about, setAbout] = useState("");
  const [parent, setParent] = useState<ReportComment | null>(null);
  const roots = report.comments.filter((c) => c.parent === null);
  const titles = new Map(report.charts.map((c) => [c.key, c.title]));
  const chartTitle = (key: string) => titles.get(key) ?? key;
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    const [kind = "", name = ""] = parent || !about ? [] : about.split(/:(.*)/);
    post.mutate(
      { body, family: kind === "family" ? name : "", chart: kind === "chart" ? name : "", parent: parent?.id ?? null },
      { onSuccess: () => { setBody(""); setParent(null); } },
    );
  };
  return (
    <div className="stack">
      <ul className="rp-comments" aria-label="Comments">
        {roots.map((c) => (
          <Thread key={c.id} comment={c} replies={report.comments.filter((r) => r.parent === c.id)} onReply={setParent} chartTitle={chartTitle} />
        ))}
      </ul>
      <form className="stack" onSubmit={onSubmit}>
        {parent ? (
          <p className="subtle">
            Replying to {parent.author}{" "}
            <button type="button" className="btn btn-sm" onClick={() => setParent(null)}>Cancel</button>
          </p>
        ) : (
          <label className="field">
            <span>About</span>
            <select value={about} onChange={(e) => setAbout(e.target.value)}>
              <option value="">the whole report</option>
              <optgroup label="Family">
                {report.figures.families.map((f) => <option key={f.family} value={`family:${f.family}`}>{f.family}</option>)}
              </optgroup>
              <optgroup label="Plot">
                {report.charts.map((c) => <option key={c.key} value={`chart:${c.key}`}>{c.title}</option>)}
              </optgroup>
            </select>
          </label>
        )}
        <label className="field">
          <span>Comment</span>
          <textarea value={body} onChange={(e) => setBody(e.target.value)} rows={3} required />
        </label>
        <button type="submit" className="btn" disabled={!body.trim() || post.isPending}>Post comment</button>
        {post.error && <ErrorMessage error={post.error} />}
      </form>
    </div>
  );
}

export function ReviewPanel({ report }: { report: Report }) {
  return (
    <div className="card-body stack">
      <Decisions report={report} />
      <Comments report={report} />
    </div>
  );
}
