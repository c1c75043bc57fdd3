import { createBrowserRouter, Navigate, type RouteObject } from "react-router";

import { AuditRoute } from "@/features/audit/routes/audit";
import { LoginRoute } from "@/features/auth/routes/login";
import { CurriculaRoute } from "@/features/curricula/routes/curricula";
import { CurriculumEditorRoute } from "@/features/curricula/routes/curriculum-editor";
import { CanaryRoute } from "@/features/deployments/routes/canary";
import { DeploymentRoute } from "@/features/deployments/routes/deployment";
import { DeploymentsRoute } from "@/features/deployments/routes/deployments";
import { NewEvaluationRoute } from "@/features/evaluation-suites/routes/new-evaluation";
import { SuiteEditorRoute } from "@/features/evaluation-suites/routes/suite-editor";
import { SuitesRoute } from "@/features/evaluation-suites/routes/suites";
import { ExperimentDetailRoute } from "@/features/experiments/routes/experiment-detail";
import { ExperimentsRoute } from "@/features/experiments/routes/experiments";
import { NewExperimentRoute } from "@/features/experiments/routes/new-experiment";
import { OverviewRoute } from "@/features/overview/routes/overview";
import { EvaluationRoute } from "@/features/reports/routes/evaluation";
import { NewReportRoute } from "@/features/reports/routes/new-report";
import { ReportRoute } from "@/features/reports/routes/report";
import { ReportsRoute } from "@/features/reports/routes/reports";
import { ModelRoute } from "@/features/registry/routes/model";
import { ModelsRoute } from "@/features/registry/routes/models";
import { CompareRunsRoute } from "@/features/runs/routes/compare-runs";
import { RunRoute } from "@/features/runs/routes/run";
import { RunsRoute } from "@/features/runs/routes/runs";
import { FamilyDetailRoute } from "@/features/task-families/routes/family-detail";
import { PoolVersionRoute } from "@/features/task-families/routes/pool-version";
import { TaskFamiliesRoute } from "@/features/task-families/routes/task-families";
import { TeamSettingsRoute } from "@/features/teams/routes/team-settings";
import { TokensRoute } from "@/features/tokens/routes/tokens";
import { UsageRoute } from "@/features/usage/routes/usage";
import { VerifierRoute } from "@/features/verifiers/routes/verifier";
import { VerifiersRoute } from "@/features/verifiers/routes/verifiers";

import { AppLayout } from "./layout/app-layout";
import { FamiliesRedirect } from "./routes/families-redirect";
import { NotFoundRoute } from "./routes/not-found";
import { RouteError } from "./routes/route-error";

export const routes: RouteObject[] = [
  { path: "/login", element: <LoginRoute />, errorElement: <RouteError /> },
  {
    path: "/",
    element: <AppLayout />,
    errorElement: <RouteError />,
    children: [
      {
        // Errors inside a page keep the header and navigation around them.
        errorElement: <RouteError />,
        children: [
          { index: true, element: <OverviewRoute /> },
          { path: "task-families", element: <TaskFamiliesRoute /> },
          { path: "task-families/:familyId", element: <FamilyDetailRoute /> },
          { path: "task-families/:familyId/versions/:versionId", element: <PoolVersionRoute /> },
          // The API says "families" (/api/v1/families/); the page is /task-families.
          { path: "families/*", element: <FamiliesRedirect /> },
          { path: "verifiers", element: <VerifiersRoute /> },
          { path: "verifiers/:verifierId/:tab?", element: <VerifierRoute /> },
          { path: "curricula", element: <CurriculaRoute /> },
          { path: "curricula/new", element: <CurriculumEditorRoute /> },
          { path: "curricula/:curriculumId", element: <CurriculumEditorRoute /> },
          { path: "experiments", element: <ExperimentsRoute /> },
          { path: "experiments/new", element: <NewExperimentRoute /> },
          { path: "experiments/:experimentId", element: <ExperimentDetailRoute /> },
          { path: "runs", element: <RunsRoute /> },
          { path: "runs/compare", element: <CompareRunsRoute /> },
          { path: "runs/:runId/:tab?", element: <RunRoute /> },
          { path: "reports", element: <ReportsRoute /> },
          { path: "reports/new", element: <NewReportRoute /> },
          { path: "reports/:reportId", element: <ReportRoute /> },
          { path: "evaluation-suites", element: <SuitesRoute /> },
          { path: "evaluation-suites/new", element: <SuiteEditorRoute /> },
          { path: "evaluation-suites/:suiteId", element: <SuiteEditorRoute /> },
          { path: "evaluations/new", element: <NewEvaluationRoute /> },
          { path: "evaluations/:evaluationId", element: <EvaluationRoute /> },
          { path: "registry", element: <ModelsRoute /> },
          { path: "registry/:modelId", element: <ModelRoute /> },
          { path: "deployments", element: <DeploymentsRoute /> },
          { path: "deployments/:slug", element: <DeploymentRoute /> },
          { path: "canaries/:canaryId", element: <CanaryRoute /> },
          { path: "settings", element: <Navigate to="/settings/tokens" replace /> },
          { path: "settings/tokens", element: <TokensRoute /> },
          { path: "settings/team", element: <TeamSettingsRoute /> },
          { path: "usage", element: <UsageRoute /> },
          { path: "audit", element: <AuditRoute /> },
          { path: "*", element: <NotFoundRoute /> },
        ],
      },
    ],
  },
];

export function createAppRouter() {
  return createBrowserRouter(routes);
}
