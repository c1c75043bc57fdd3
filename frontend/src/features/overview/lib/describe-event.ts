// What an audit action did, as the words between the actor and the target's name:
// "ada" + "created task family" + "“Arithmetic”".
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
