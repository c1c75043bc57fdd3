import { useState, type FormEvent } from "react";
import { Link, useNavigate, useSearchParams } from "react-router";

import { CheckpointPicker } from "@/components/checkpoint-picker/checkpoint-picker";
import { ModelSelect } from "@/components/model-select/model-select";
import { Card, QueryPlaceholder } from "@/components/ui/card";
import { FormAlert, FormField } from "@/components/ui/form-field";
import { PageHeader } from "@/components/ui/page-header";
import { useCurrentTeam } from "@/lib/current-team";
import { fieldErrors } from "@/lib/field-errors";
import { useAvailableModels } from "@/lib/worker-models";
import { usePoolVersions } from "@/lib/pool-versions";

import { useVerifiers } from "../api/get-choices";
import { useSuites } from "../api/get-suites";
import { useStartEvaluation } from "../api/start-evaluation";
import type { EvaluationInput, EvaluationSuite, PoolVersion, Verifier } from "../api/types";
import { FamilyRows } from "../components/family-rows";
import {
  DEFAULT_SETTINGS,
  familiesBody,
  familiesChosen,
  newRow,
  settingsBody,
  shownFamilyOrSetting,
  type FamilyRow,
  type Settings,
} from "../components/form-state";
import { SettingsFields } from "../components/settings-fields";
import "../evaluation-suites.css";

type Subject = "checkpoint" | "model";
type Source = "suite" | "families";
/** "": the default (a checkpoint's recorded format, raw for a base model). */
type FormatChoice = "" | "raw" | "chat";

const shownField = (path: string) =>
  ["checkpoint", "model", "suite", "prompt_format", "prompt_format.kind", "prompt_format.system_prompt"].includes(path) || shownFamilyOrSetting(path);

/** A format as sent: the generated type marks fields with a server default (reasoning_tags) as
 * required, and leaving them out takes that default. */
type FormatBody = { prompt_format?: Partial<NonNullable<EvaluationInput["prompt_format"]>> };

/** The body's prompt format: left out for the default. */
function formatBody(choice: FormatChoice, systemPrompt: string): FormatBody {
  if (choice === "") return {};
  if (choice === "raw") return { prompt_format: { kind: "raw" } };
  return { prompt_format: { kind: "chat", system_prompt: systemPrompt.trim() || null } };
}

function Choice<T extends string>({ legend, value, options, onChange }: { legend: string; value: T; options: [T, string][]; onChange: (value: T) => void }) {
  return (
    <fieldset className="es-choice">
      <legend>{legend}</legend>
      {options.map(([key, label]) => (
        <label key={key} className="row">
          <input type="radio" name={legend} checked={value === key} onChange={() => onChange(key)} />
          {label}
        </label>
      ))}
    </fieldset>
  );
}

function SuiteSummary({ suite }: { suite: EvaluationSuite | undefined }) {
  if (!suite) return null;
  const families = suite.families.map((f) => `${f.family} v${f.version_number} (threshold ${f.threshold_pts} pts)`).join(", ");
  return (
    <p className="subtle">
      {families}; k = {suite.k}, temperature {suite.temperature}, {suite.max_new_tokens} new tokens, ≤ {suite.max_tasks} tasks per family.
    </p>
  );
}

function NewEvaluationForm({ suites, versions, verifiers }: { suites: EvaluationSuite[]; versions: PoolVersion[]; verifiers: Verifier[] }) {
  const { team } = useCurrentTeam();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const models = useAvailableModels("cpu");
  const start = useStartEvaluation();
  const [subject, setSubject] = useState<Subject>(params.get("model") ? "model" : "checkpoint");
  const [checkpoint, setCheckpoint] = useState(params.get("checkpoint") ?? "");
  const [model, setModel] = useState(params.get("model") ?? "");
  const [source, setSource] = useState<Source>(params.get("suite") || suites.length > 0 ? "suite" : "families");
  const [suite, setSuite] = useState<number | null>(Number(params.get("suite")) || suites[0]?.id || null);
  const [families, setFamilies] = useState<FamilyRow[]>([newRow()]);
  const [settings, setSettings] = useState<Settings>({ ...DEFAULT_SETTINGS });
  const [format, setFormat] = useState<FormatChoice>("");
  const [systemPrompt, setSystemPrompt] = useState("");
  const chosenModel = models.data?.models.find((m) => m.name === model.trim());
  const noTemplate = subject === "model" && chosenModel?.chat_template === false;
  const { byField, other } = fieldErrors(start.error, shownField);
  const errorFor = (path: string) => byField[path];
  const ready = (source === "suite" ? suite !== null : familiesChosen(families)) && (subject === "checkpoint" ? checkpoint.trim() : model.trim());

  function submit(event: FormEvent) {
    event.preventDefault();
    const target = subject === "checkpoint" ? { checkpoint: Number(checkpoint) } : { model: model.trim() };
    const what = source === "suite" ? { suite: suite as number } : { families: familiesBody(families), ...settingsBody(settings) };
    const input = { team: team?.slug ?? "", ...target, ...what, ...formatBody(format, systemPrompt) } as EvaluationInput;
    start.mutate(input, { onSuccess: () => navigate("/reports") });
  }

  return (
    <form className="card-body stack" onSubmit={submit} aria-label="New evaluation" noValidate>
      <FormAlert messages={other} />
      <Choice legend="Evaluate" value={subject} options={[["checkpoint", "A checkpoint"], ["model", "A base model"]]} onChange={setSubject} />
      {subject === "checkpoint" ? (
        <FormField className="es-field" label="Checkpoint" hint="A run of the team, then one of its checkpoints." error={errorFor("checkpoint")}>
          {(control) => <CheckpointPicker value={checkpoint} onChange={setCheckpoint} control={control} />}
        </FormField>
      ) : (
        <FormField className="es-field" label="Base model" hint={models.data?.detail || "A model of the catalogue."} error={errorFor("model")}>
          {(control) => <ModelSelect queue="cpu" value={model} onChange={setModel} control={control} />}
        </FormField>
      )}
      <FormField
        className="es-field"
        label="Prompt format"
        hint="How each task becomes model input. Compare a checkpoint with its base model in the same format: the checkpoint's own, which is what it trained in."
        error={errorFor("prompt_format.kind") ?? errorFor("prompt_format")}
      >
        {(control) => (
          <select {...control} className="select" value={format} onChange={(e) => setFormat(e.target.value as FormatChoice)}>
            <option value="">{subject === "checkpoint" ? "As the checkpoint trained" : "Raw prompt (default)"}</option>
            {subject === "checkpoint" && <option value="raw">Raw prompt</option>}
            <option value="chat">Chat template{noTemplate ? " (this model has no chat template)" : ""}</option>
          </select>
        )}
      </FormField>
      {format === "chat" && (
        <FormField className="es-field" label="System prompt" hint="The system turn before each prompt; leave blank for none." error={errorFor("prompt_format.system_prompt")}>
          {(control) => <textarea {...control} className="input" rows={2} value={systemPrompt} onChange={(e) => setSystemPrompt(e.target.value)} />}
        </FormField>
      )}
      <Choice legend="On" value={source} options={[["suite", "From a suite"], ["families", "Chosen families"]]} onChange={setSource} />
      {source === "suite" ? (
        <FormField
          className="es-field"
          label="Evaluation suite"
          hint={suites.length ? undefined : <>No suite yet: <Link to="/evaluation-suites/new">save one</Link>.</>}
          error={errorFor("suite")}
        >
          {(control) => (
            <select {...control} className="select" value={suite ?? ""} onChange={(e) => setSuite(e.target.value ? Number(e.target.value) : null)}>
              <option value="">Choose a suite…</option>
              {suites.map((s) => (
                <option key={s.id} value={s.id}>
                  {s.name}
                </option>
              ))}
            </select>
          )}
        </FormField>
      ) : (
        <>
          <FamilyRows rows={families} versions={versions} verifiers={verifiers} errorFor={errorFor} onChange={setFamilies} />
          <SettingsFields settings={settings} errorFor={errorFor} onChange={setSettings} />
        </>
      )}
      {source === "suite" && <SuiteSummary suite={suites.find((s) => s.id === suite)} />}
      <div className="row">
        <button type="submit" className="btn btn-primary" disabled={start.isPending || !ready}>
          {start.isPending ? "Queuing…" : "Start evaluation"}
        </button>
      </div>
    </form>
  );
}

export function NewEvaluationRoute() {
  const suites = useSuites();
  const versions = usePoolVersions();
  const verifiers = useVerifiers();
  const loading = [suites, versions, verifiers].find((q) => !q.data);
  return (
    <>
      <div className="subtle" style={{ marginBottom: "var(--space-2)" }}>
        <Link to="/reports">Reports</Link> /
      </div>
      <PageHeader
        title="New evaluation"
        description="A checkpoint or a base model sampled k times on each held-out task, on the cpu queue; compare two finished evaluations in a report."
      />
      <Card title="Evaluation">
        {loading ? (
          <QueryPlaceholder query={loading} />
        ) : (
          <NewEvaluationForm suites={suites.data ?? []} versions={versions.data ?? []} verifiers={verifiers.data ?? []} />
        )}
      </Card>
    </>
  );
}
