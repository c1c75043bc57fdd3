import { ConceptPage } from "@/components/ui/concept-page";

export function TaskFamiliesRoute() {
  return (
    <ConceptPage
      title="Task families"
      icon="families"
      description="A task family is a kind of verifiable work — Python functions with unit tests, math with a numeric answer, JSON against a schema — with a prompt template, a task source and a default verifier."
      emptyTitle="No task families yet"
      emptyBody="Task families your team defines will be listed here, with their pool versions and difficulty grades."
    />
  );
}
