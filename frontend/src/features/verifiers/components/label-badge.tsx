/** A labelled example's label as a badge (green for good, red for bad), after `prefix`
 * ("known", "labelled") when given. */
export function LabelBadge({ label, prefix }: { label: string; prefix?: string }) {
  return (
    <span className={`badge ${label === "good" ? "badge-success" : "badge-danger"}`}>
      {prefix ? `${prefix} ${label}` : label}
    </span>
  );
}
