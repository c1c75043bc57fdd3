import { isRouteErrorResponse, Link, useRouteError } from "react-router";

import { EmptyState } from "@/components/ui/empty-state";

/** Shown instead of a page that threw while rendering, so the shell around it survives. */
export function RouteError() {
  const error = useRouteError();
  const detail = isRouteErrorResponse(error)
    ? `${error.status} ${error.statusText}`
    : error instanceof Error
      ? error.message
      : "Unknown error";
  return (
    <EmptyState title="This page failed to load" action={<Link to="/">Back to the overview</Link>}>
      {detail}
    </EmptyState>
  );
}
