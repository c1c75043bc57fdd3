import { Link } from "react-router";

import type { VersionResult } from "../api/version-request";

/** Says whether a request made a new version or found the same content already frozen. */
export function VersionResultNotice({ result, familyId }: { result: VersionResult; familyId: number }) {
  const { version, created } = result;
  const link = (
    <Link to={`/task-families/${familyId}/versions/${version.id}`}>
      v{version.number} ({version.task_count} tasks)
    </Link>
  );
  return created ? (
    <div className="alert alert-success" role="status">
      Froze version {link}.
    </div>
  ) : (
    <div className="alert alert-warning" role="status">
      Nothing new: the content is identical to the latest version, {link}. No version was added.
    </div>
  );
}
