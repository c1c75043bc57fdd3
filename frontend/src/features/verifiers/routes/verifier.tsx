import { useState } from "react";
import { Link, useNavigate, useParams } from "react-router";

import { QueryPlaceholder } from "@/components/ui/card";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { EmptyState } from "@/components/ui/empty-state";
import { PageHeader } from "@/components/ui/page-header";

import { useDeleteVerifier } from "../api/delete-verifier";
import { useVerifier } from "../api/get-verifier";
import { useVerifierKinds } from "../api/get-verifier-kinds";
import type { Verifier } from "../api/get-verifiers";
import { EpisodePlayground } from "../components/episode-playground";
import { ExamplesPanel } from "../components/examples-panel";
import { Playground } from "../components/playground";
import { ProposalsPanel } from "../components/proposals-panel";
import { SpecBuilder } from "../components/spec-builder";
import { VersionsPanel } from "../components/versions-panel";
import "../components/verifiers.css";
import { BLANK_SPEC, specText, toDraft, toSpec, type Draft } from "../lib/spec";

const TABS = [
  { path: "builder", label: "Builder" },
  { path: "playground", label: "Playground" },
  { path: "episodes", label: "Episodes" },
  { path: "examples", label: "Examples" },
  { path: "versions", label: "Versions" },
] as const;

type Tab = (typeof TABS)[number]["path"];

function isTab(value: string | undefined): value is Tab {
  return TABS.some((t) => t.path === value);
}

function Tabs({ verifier, current }: { verifier: Verifier; current: Tab }) {
  const counts: Partial<Record<Tab, number>> = {
    examples: verifier.example_count,
    versions: verifier.version_count,
  };
  return (
    <nav className="vf-tabs" aria-label="Verifier sections">
      {TABS.map((tab) => (
        <Link
          key={tab.path}
          to={`/verifiers/${verifier.id}/${tab.path}`}
          className="vf-tab"
          aria-current={tab.path === current ? "page" : undefined}
        >
          {tab.label}
          {counts[tab.path] !== undefined && <span className="vf-tab-count">{counts[tab.path]}</span>}
        </Link>
      ))}
    </nav>
  );
}

/** The draft lives here, above the tabs, so the playground runs what the builder shows. */
function useDraft(verifier: Verifier) {
  const latest = verifier.latest_version;
  const baseHash = latest?.spec_hash ?? "";
  const [state, setState] = useState(() => ({ hash: baseHash, draft: toDraft(latest?.spec ?? BLANK_SPEC) }));
  // A new saved version (here or elsewhere) replaces the draft with its canonical spec.
  if (state.hash !== baseHash) setState({ hash: baseHash, draft: toDraft(latest?.spec ?? BLANK_SPEC) });
  const base = specText(toSpec(toDraft(latest?.spec ?? BLANK_SPEC)));
  const dirty = specText(toSpec(state.draft)) !== base;
  return {
    draft: state.draft,
    dirty,
    setDraft: (draft: Draft) => setState((s) => ({ ...s, draft })),
    reset: () => setState({ hash: baseHash, draft: toDraft(latest?.spec ?? BLANK_SPEC) }),
  };
}

function VerifierPage({ verifier, tab }: { verifier: Verifier; tab: Tab }) {
  const kinds = useVerifierKinds();
  const { draft, dirty, setDraft, reset } = useDraft(verifier);
  const navigate = useNavigate();
  const remove = useDeleteVerifier();
  const [deleting, setDeleting] = useState(false);
  const latest = verifier.latest_version;

  return (
    <div className="vf">
      <div className="subtle" style={{ marginBottom: 4 }}>
        <Link to="/verifiers">Verifiers</Link> /
      </div>
      <PageHeader
        title={verifier.name}
        description={
          <span className="row" style={{ flexWrap: "wrap" }}>
            {verifier.family_kind ? <span className="vf-chip">{verifier.family_kind}</span> : <span className="vf-chip">custom</span>}
            {latest ? (
              <span>
                version {latest.number} <span className="mono subtle">{latest.spec_hash.slice(0, 12)}</span>
              </span>
            ) : (
              <span>no version yet</span>
            )}
            {dirty && <span className="badge badge-warning">unsaved draft</span>}
            {verifier.description && <span className="muted">· {verifier.description}</span>}
          </span>
        }
        actions={
          <button type="button" className="btn" onClick={() => setDeleting(true)}>
            Delete
          </button>
        }
      />
      <Tabs verifier={verifier} current={tab} />
      <QueryPlaceholder query={kinds} />
      {kinds.data && tab === "builder" && (
        <SpecBuilder
          verifierId={verifier.id}
          latestNumber={latest?.number ?? null}
          draft={draft}
          dirty={dirty}
          kinds={kinds.data}
          onChange={setDraft}
          onReset={reset}
        />
      )}
      {tab === "playground" && (
        <Playground
          verifierId={verifier.id}
          team={verifier.team ?? ""}
          familyKind={verifier.family_kind}
          spec={toSpec(draft)}
          dirty={dirty}
        />
      )}
      {tab === "episodes" && <EpisodePlayground team={verifier.team ?? ""} familyKind={verifier.family_kind} spec={toSpec(draft)} />}
      {tab === "examples" && (
        <div className="stack">
          <ProposalsPanel verifier={verifier} />
          <ExamplesPanel verifier={verifier} />
        </div>
      )}
      {tab === "versions" && <VersionsPanel verifierId={verifier.id} />}
      {deleting && (
        <ConfirmDialog
          title={`Delete “${verifier.name}”?`}
          confirmLabel={remove.isPending ? "Deleting…" : "Delete verifier"}
          pending={remove.isPending}
          error={remove.error}
          onCancel={() => setDeleting(false)}
          onConfirm={() => remove.mutate(verifier.id, { onSuccess: () => navigate("/verifiers") })}
        >
          Its versions and labelled examples go with it. Experiments that pinned a version may refuse this.
        </ConfirmDialog>
      )}
    </div>
  );
}

export function VerifierRoute() {
  const params = useParams();
  const id = Number(params.verifierId);
  const tab: Tab = isTab(params.tab) ? params.tab : "builder";
  const verifier = useVerifier(id);
  if (!Number.isInteger(id) || id <= 0) {
    return <EmptyState title="No such verifier" icon="verifiers" />;
  }
  if (!verifier.data) return <QueryPlaceholder query={verifier} />;
  return <VerifierPage key={verifier.data.id} verifier={verifier.data} tab={tab} />;
}
