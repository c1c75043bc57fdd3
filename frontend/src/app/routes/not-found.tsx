import { Link } from "react-router";

import { EmptyState } from "@/components/ui/empty-state";

export function NotFoundRoute() {
  return (
    <EmptyState title="Page not found" action={<Link to="/">Back to the overview</Link>}>
      Nothing lives at this address.
    </EmptyState>
  );
}
