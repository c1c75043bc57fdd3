import { Navigate, useLocation, useParams } from "react-router";

/** `/families/...` → `/task-families/...`, keeping the rest of the path, the query and the hash. */
export function FamiliesRedirect() {
  const rest = useParams()["*"];
  const { search, hash } = useLocation();
  return <Navigate to={`/task-families${rest ? `/${rest}` : ""}${search}${hash}`} replace />;
}
