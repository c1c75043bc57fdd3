import { useState, type FormEvent } from "react";
import { Link, useLocation, useNavigate, useParams } from "react-router";

import { Card, QueryPlaceholder } from "@/components/ui/card";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { PageHeader } from "@/components/ui/page-header";
import { useCurrentTeam } from "@/lib/current-team";
import { usePoolVersions } from "@/lib/pool-versions";

import { useDeleteCurriculum } from "../api/delete-curriculum";
import { useCurriculum } from "../api/get-curriculum";
import { usePreviewCurriculum } from "../api/preview-curriculum";
import { useSaveCurriculum } from "../api/save-curriculum";
import type { Curriculum, PoolVersion } from "../api/types";
import { configFromState, newEntry, shownConfigField, stateFromConfig, type ConfigState } from "../components/config-state";
import { CurriculumConfigForm } from "../components/curriculum-form";
import { collectErrors } from "../components/errors";
import { PreviewPanel, type SimulationSettings } from "../components/preview-panel";
import "../curricula.css";

/** The fields the editor shows an error beside; any other error is listed above the form. */
const shownField = (path: string) => path === "name" || shownConfigField(path);

function Editor({ curriculum, versions }: { curriculum: Curriculum | null; versions: PoolVersion[] }) {
  const { team } = useCurrentTeam();
  const navigate = useNavigate();
  const [name, setName] = useState(curriculum?.name ?? "");
  const [description, setDescription] = useState(curriculum?.description ?? "");
  const [state, setState] = useState<ConfigState>(() => {
    const initial = stateFromConfig(curriculum?.config);
    if (!curriculum && versions[0]) initial.families = [newEntry(versions[0].id)];
    return initial;
  });
  // A new curriculum reopens at its own address; the state says it was just saved.
  const justCreated = (useLocation().state as { created?: boolean } | null)?.created === true;
  const [savedKey, setSavedKey] = useState<string | null>(null);
  const [previewedConfig, setPreviewedConfig] = useState<string | null>(null);
  const [confirmDelete, setConfirmDelete] = useState(false);
  const save = useSaveCurriculum(curriculum?.id ?? null, team?.slug);
  const preview = usePreviewCurriculum(team?.slug);
  const remove = useDeleteCurriculum();
  const config = configFromState(state);
  const configKey = JSON.stringify(config);
  const { byField, other } = collectErrors([save.error], shownField);
  const previewErrors = collectErrors([preview.error], shownField);
  const errorFor = (path: string) => byField[path] ?? previewErrors.byField[path];

  const formKey = JSON.stringify([configKey, name, description]);
  // "Saved" holds until the form is edited again.
  const [createdKey] = useState(() => (justCreated ? formKey : null));
  const saved = (savedKey ?? createdKey) === formKey;

  function submit(event: FormEvent) {
    event.preventDefault();
    save.mutate(
      { name: name.trim(), description: description.trim(), config },
      {
        onSuccess: (result) => {
          setSavedKey(formKey);
          if (!curriculum) navigate(`/curricula/${result.id}`, { replace: true, state: { created: true } });
        },
      },
    );
  }

  function runPreview(settings: SimulationSettings) {
    preview.mutate({ ...settings, config }, { onSuccess: () => setPreviewedConfig(configKey) });
  }

  return (
    <>
      <div className="subtle" style={{ marginBottom: "var(--space-2)" }}>
        <Link to="/curricula">Curricula</Link> /
      </div>
      <PageHeader
        title={curriculum ? curriculum.name : "New curriculum"}
        description={
          curriculum
            ? `Revision ${curriculum.revision}. Experiments pin the revision they launched with.`
            : "Choose the pool versions to train on and how difficulty should follow the model's success."
        }
        actions={
          curriculum && (
            <button type="button" className="btn btn-ghost" onClick={() => setConfirmDelete(true)}>
              Delete
            </button>
          )
        }
      />
      <div className="stack">
        <Card title="Curriculum">
          <form className="card-body stack" onSubmit={submit} aria-label="Curriculum" noValidate>
            {other.length > 0 && (
              <div className="alert alert-error" role="alert">
                {other.map((m) => (
                  <div key={m}>{m}</div>
                ))}
              </div>
            )}
            <div className="form-row" style={{ alignItems: "flex-start" }}>
              <div className="field cu-field" style={{ flex: "1 1 240px" }}>
                <label htmlFor="cu-name">Name</label>
                <input
                  id="cu-name"
                  className="input"
                  value={name}
                  placeholder="Arithmetic ramp"
                  aria-invalid={errorFor("name") ? true : undefined}
                  onChange={(e) => setName(e.target.value)}
                />
                {errorFor("name") && <span className="field-error">{errorFor("name")}</span>}
              </div>
              <div className="field cu-field" style={{ flex: "2 1 360px" }}>
                <label htmlFor="cu-description">Description</label>
                <input id="cu-description" className="input" value={description} onChange={(e) => setDescription(e.target.value)} />
              </div>
            </div>
            <CurriculumConfigForm state={state} versions={versions} errorFor={errorFor} onChange={setState} />
            <div className="row">
              <button type="submit" className="btn btn-primary" disabled={save.isPending || !name.trim()}>
                {save.isPending ? "Saving…" : curriculum ? "Save changes" : "Create curriculum"}
              </button>
              {saved && !save.isPending && (
                <span className="subtle" role="status">
                  Saved · revision {save.data?.revision ?? curriculum?.revision}.
                </span>
              )}
            </div>
          </form>
        </Card>
        <Card
          title="Preview"
          description="A simulated learner trained under this curriculum, as edited above (nothing is saved)."
        >
          <div className="card-body">
            <PreviewPanel
              onRun={runPreview}
              pending={preview.isPending}
              messages={[
                ...previewErrors.other,
                ...(Object.keys(previewErrors.byField).length > 0 ? ["Fix the fields marked above, then run it again."] : []),
              ]}
              trace={preview.data}
              stale={previewedConfig !== null && previewedConfig !== configKey}
            />
          </div>
        </Card>
      </div>
      {confirmDelete && curriculum && (
        <ConfirmDialog
          title={`Delete “${curriculum.name}”?`}
          confirmLabel={remove.isPending ? "Deleting…" : "Delete curriculum"}
          pending={remove.isPending}
          error={remove.error}
          onCancel={() => setConfirmDelete(false)}
          onConfirm={() => remove.mutate(curriculum.id, { onSuccess: () => navigate("/curricula") })}
        >
          This cannot be undone.
        </ConfirmDialog>
      )}
    </>
  );
}

export function CurriculumEditorRoute() {
  const param = useParams().curriculumId;
  const id = param ? Number(param) : null;
  const curriculum = useCurriculum(id);
  const versions = usePoolVersions();
  if ((id !== null && !curriculum.data) || !versions.data) {
    return (
      <>
        <PageHeader title={id === null ? "New curriculum" : "Curriculum"} />
        <QueryPlaceholder query={id !== null && !curriculum.data ? curriculum : versions} />
      </>
    );
  }
  return <Editor key={id ?? "new"} curriculum={curriculum.data ?? null} versions={versions.data} />;
}
