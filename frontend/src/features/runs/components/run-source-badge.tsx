/** Says that a run was trained outside the platform (a TRL script streaming into it), so no
 * one looks for its worker, its experiment or a pause button on it. */
export function RunSourceBadge({ source }: { source: string }) {
  if (source !== "external") return null;
  return (
    <span className="badge rn-source-badge" title="Trained outside the platform and streamed in over the API; no worker runs it.">
      source: external
    </span>
  );
}
