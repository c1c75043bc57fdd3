// The deployment and canary shapes, by their names in the OpenAPI schema.
import type { components } from "@/api/schema";
import type { ApiRequestBody } from "@/lib/api-types";

type Schemas = components["schemas"];

export type Deployment = Schemas["Deployment"];
export type Replica = Schemas["Replica"];
export type Canary = Schemas["Canary"];
export type CanaryState = Schemas["CanaryStateEnum"];
export type CanaryMode = Schemas["CanaryModeEnum"];
export type Analysis = Schemas["Analysis"];
export type Check = Schemas["Check"];
export type SideStats = Schemas["SideStats"];
export type VerdictSource = Schemas["VerdictSource"];
export type PassRate = Schemas["PassRate"];
export type SeriesPoint = Schemas["SeriesPoint"];
export type StepRecord = Schemas["StepRecord"];
export type Guardrails = Schemas["Guardrails"];
export type ServedRequest = Schemas["ServedRequest"];
export type GenerateAnswer = Schemas["GenerateAnswer"];
export type VersionLabel = Schemas["VersionLabel"];

export type DeploymentInput = ApiRequestBody<"/api/v1/deployments/", "post">;
export type DeploymentPatch = ApiRequestBody<"/api/v1/deployments/{slug}/", "patch">;
export type PromptInput = Schemas["ServePromptRequest"];
export type CanaryDecision = Schemas["CanaryDecisionEnum"];

/** Guardrails the start form sets (alpha keeps the server's default). */
export type GuardrailInput = Required<Omit<Guardrails, "alpha">> & { alpha?: number };

export type CanaryStartInput = {
  candidate: number;
  mode: CanaryMode;
  steps: number[];
  guardrails: GuardrailInput;
};

/** GET /canaries/{id}/report/: the schema leaves it untyped; what the page reads of it. */
export type VersionRef = {
  id: number;
  number: number;
  label: string;
  checkpoint: number | null;
  base_model: string;
  evaluation_report: number | null;
};

export type CanaryReport = {
  canary: number;
  deployment: string;
  mode: CanaryMode;
  steps: number[];
  state: CanaryState;
  outcome: string;
  started_at: string;
  finished_at: string | null;
  production: VersionRef | null;
  candidate: VersionRef | null;
  history: StepRecord[];
};

/** The canaries of every deployment are under this key, so the team socket's
 * "deployment.changed" (which invalidates ["deployment"]) refreshes them too. */
export const deploymentsKey = ["deployment"] as const;
