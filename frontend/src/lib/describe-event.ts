// What an audit action did, as the words between the actor and the target's name:
// "ada" + "created task family" + "“Arithmetic”" (the overview), or a whole sentence
// "ada approved report #12 (run 3 vs base)" (the audit page).
const PHRASES: Record<string, string> = {
  "team.created": "created team",
  "member.added": "added member",
  "member.role_changed": "changed the role of",
  "member.removed": "removed member",
  "token.created": "created API token",
  "token.revoked": "revoked API token",
  "family.created": "created task family",
  "family.updated": "edited task family",
  "family.deleted": "deleted task family",
  "family.archived": "archived task family",
  "family.restored": "restored task family",
  "pool.version_created": "froze pool version",
  "pool.grading_started": "started measuring the difficulty of pool version",
  "verifier.created": "created verifier",
  "verifier.version_created": "saved verifier version",
  "verifier.example_added": "added a labelled example to verifier",
  "verifier.example_deleted": "deleted a labelled example of verifier",
  "verifier.deleted": "deleted verifier",
  "curriculum.created": "created curriculum",
  "curriculum.config_changed": "changed the config of curriculum",
  "curriculum.deleted": "deleted curriculum",
  "run.launched": "launched run",
  "run.cancel_requested": "asked to cancel run",
  "run.pause_requested": "paused run",
  "run.resumed": "resumed run",
  "run.curriculum_changed": "changed the curriculum of run",
  "report.created": "made report",
  "report.submitted": "submitted for review: report",
  "report.approve": "approved report",
  "report.request_changes": "asked for changes to report",
  "report.commented": "commented on report",
  "report.regression_overridden": "overrode a regression in report",
  "review_policy.changed": "changed the review policy of team",
  "evaluation.started": "started evaluation",
  "evaluation_suite.created": "created evaluation suite",
  "evaluation_suite.updated": "edited evaluation suite",
  "evaluation_suite.deleted": "deleted evaluation suite",
  "health_settings.changed": "changed the health settings of run",
  "preflight.started": "started a pre-flight check of",
  "model_version.registered": "registered model version",
  "model_alias.set": "moved an alias of model",
  "model_alias.removed": "removed an alias of model",
  "canary.decided": "decided canary",
  "verifier.example_proposed": "proposed a labelled example to verifier",
};

/**
 * "family.created" → "created task family". An action without a phrase is read from its
 * name: "experiment.created" → "created experiment", "run.state_changed" → "run state changed on".
 */
export function describeAction(action: string): string {
  const phrase = PHRASES[action];
  if (phrase) return phrase;
  const [subject = action, event = ""] = action.split(".").map((part) => part.replaceAll("_", " "));
  if (!event) return subject;
  return event.includes(" ") ? `${subject} ${event} on` : `${event} ${subject}`;
}

/** The target's name when the event was logged, else its id (events from before names). */
export function targetName(entry: { target_label: string; target_id: string }): string {
  return entry.target_label || `#${entry.target_id}`;
}

/** The target as the audit page names it: "#12 (run 3 vs base)", or "#12" without a name. */
export function targetReference(entry: { target_label: string; target_id: string }): string {
  return entry.target_label ? `#${entry.target_id} (${entry.target_label})` : `#${entry.target_id}`;
}

/** "ada approved report #12 (run 3 vs base)"; an event without an actor was the system's. */
export function auditSentence(entry: { actor: string | null; action: string; target_label: string; target_id: string }): string {
  return `${entry.actor ?? "the system"} ${describeAction(entry.action)} ${targetReference(entry)}`;
}
