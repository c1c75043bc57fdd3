import type { ReactNode } from "react";

import { EmptyState } from "./empty-state";
import type { IconName } from "./icon";
import { PageHeader } from "./page-header";

/** A section of the product that has no items yet: what it is, and an empty state. */
export function ConceptPage({
  title,
  description,
  icon,
  emptyTitle,
  emptyBody,
}: {
  title: string;
  description: ReactNode;
  icon: IconName;
  emptyTitle: string;
  emptyBody: ReactNode;
}) {
  return (
    <>
      <PageHeader title={title} description={description} />
      <EmptyState title={emptyTitle} icon={icon}>
        {emptyBody}
      </EmptyState>
    </>
  );
}
