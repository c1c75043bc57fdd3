import { useState } from "react";

import { asConversation, Conversation } from "@/components/conversation/conversation";
import { Card, QueryPlaceholder } from "@/components/ui/card";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { EmptyState } from "@/components/ui/empty-state";
import { ErrorMessage } from "@/components/ui/error-message";
import { formatDateTime, formatRelative } from "@/lib/format";

import { useDeleteExample } from "../api/delete-example";
import { useCalibrateVersion } from "../api/calibrate-version";
import { useEvaluateVersion } from "../api/evaluate-version";
import { useExamples, type Example } from "../api/get-examples";
import type { Verifier } from "../api/get-verifiers";
import { useVersions } from "../api/get-versions";
import { judgeLayerNames } from "../lib/spec";
import { AddExampleForm } from "./add-example-form";
import { CalibrationReport } from "./calibration-report";
import { EvaluationReport } from "./evaluation-report";
import { LabelBadge } from "./label-badge";

/** A labelled turn of an episode: which turn, and the conversation up to it one click away,
 * with the labelled turn marked. */
function LabelledTurn({ example }: { example: Example }) {
  const messages = asConversation(example.messages);
  if (!messages || example.turn === null || example.turn === undefined) return null;
  const number = messages.slice(0, example.turn + 1).filter((m) => m.role === "assistant").length;
  return (
    <details className="vf-turn">
      <summary>
        Turn {number} of an episode <span className="subtle">(left out of the rates: the environment judged it)</span>
      </summary>
      <Conversation
        messages={messages}
        label={`Episode of example ${example.id}`}
        turnExtra={(index) =>
          index === example.turn ? (
            <LabelBadge prefix="labelled" label={example.label} />
          ) : null
        }
      />
    </details>
  );
}

function ExamplesTable({ examples, onDelete }: { examples: Example[]; onDelete: (e: Example) => void }) {
  const now = new Date();
  return (
    <div className="table-wrap">
      <table className="table" aria-label="Labelled examples">
        <thead>
          <tr>
            <th>#</th>
            <th>Label</th>
            <th>Response</th>
            <th>Expected</th>
            <th>Note</th>
            <th>Added</th>
            <th>
              <span className="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {examples.map((example) => (
            <tr key={example.id}>
              <td className="mono subtle">{example.id}</td>
              <td>
                <LabelBadge label={example.label} />
              </td>
              <td>
                <div className="vf-snippet" title={example.response}>
                  {example.response.replace(/\s+/g, " ")}
                </div>
                <LabelledTurn example={example} />
              </td>
              <td>
                <div className="vf-snippet subtle" title={JSON.stringify(example.expected, null, 2)}>
                  {JSON.stringify(example.expected)}
                </div>
              </td>
              <td>{example.note || <span className="subtle">—</span>}</td>
              <td title={formatDateTime(example.created_at)}>{formatRelative(example.created_at, now)}</td>
              <td className="cell-actions">
                <button
                  type="button"
                  className="btn btn-sm"
                  aria-label={`Delete example ${example.id}`}
                  onClick={() => onDelete(example)}
                >
                  Delete
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function Evaluate({ verifier, examples }: { verifier: Verifier; examples: Example[] }) {
  const versions = useVersions(verifier.id);
  const latest = verifier.latest_version?.number ?? null;
  const [chosen, setChosen] = useState<number | null>(null);
  const number = chosen ?? latest;
  const evaluate = useEvaluateVersion(verifier.id);
  const calibrate = useCalibrateVersion(verifier.id);
  const selected = versions.data?.find((v) => v.number === number) ?? verifier.latest_version;
  const judges = judgeLayerNames(selected?.spec);
  const [judge, setJudge] = useState<string>("");
  const layer = judges.includes(judge) ? judge : judges[0];

  if (latest === null) {
    return <p className="subtle">Save a version in the builder to evaluate it.</p>;
  }
  return (
    <div className="stack">
      <div className="row">
        <label htmlFor="evaluate-version" className="subtle">
          Version
        </label>
        <select
          id="evaluate-version"
          className="select"
          value={number ?? ""}
          onChange={(e) => {
            setChosen(Number(e.target.value));
            evaluate.reset();
            calibrate.reset();
          }}
        >
          {(versions.data ?? [verifier.latest_version!]).map((v) => (
            <option key={v.number} value={v.number}>
              v{v.number}
              {v.note ? ` — ${v.note}` : ""}
            </option>
          ))}
        </select>
        <button
          type="button"
          className="btn btn-primary"
          disabled={evaluate.isPending || examples.length === 0 || number === null}
          onClick={() => number !== null && evaluate.mutate(number)}
        >
          {evaluate.isPending ? "Evaluating…" : `Evaluate version ${number}`}
        </button>
        {judges.length > 1 && (
          <>
            <label htmlFor="calibrate-layer" className="subtle">
              Judge layer
            </label>
            <select
              id="calibrate-layer"
              className="select"
              value={layer}
              onChange={(e) => {
                setJudge(e.target.value);
                calibrate.reset();
              }}
            >
              {judges.map((name) => (
                <option key={name} value={name}>
                  {name}
                </option>
              ))}
            </select>
          </>
        )}
        {judges.length > 0 && (
          <button
            type="button"
            className="btn"
            title="Model judges are biased: calibrate them against labelled examples."
            disabled={calibrate.isPending || number === null}
            onClick={() =>
              number !== null && calibrate.mutate({ number, layer: judges.length > 1 ? layer : undefined })
            }
          >
            {calibrate.isPending ? "Calibrating…" : "Calibrate judge"}
          </button>
        )}
        {examples.length === 0 && <span className="subtle">Add labelled examples first.</span>}
      </div>
      <ErrorMessage error={evaluate.error} />
      {evaluate.data && <EvaluationReport evaluation={evaluate.data} examples={examples} />}
      <ErrorMessage error={calibrate.error} />
      {calibrate.data && (
        <CalibrationReport verifierId={verifier.id} latestNumber={latest} calibration={calibrate.data} />
      )}
    </div>
  );
}

export function ExamplesPanel({ verifier }: { verifier: Verifier }) {
  const examples = useExamples(verifier.id);
  const remove = useDeleteExample(verifier.id);
  const [deleting, setDeleting] = useState<Example | null>(null);
  const list = examples.data ?? [];
  const good = list.filter((e) => e.label === "good").length;

  function close() {
    setDeleting(null);
    remove.reset();
  }

  return (
    <div className="stack">
      <Card
        title="Measure the verifier"
        description="Judge every labelled example: how often a bad response is accepted (false positive) or a good one rejected (false negative)."
      >
        <div className="card-body">
          <Evaluate verifier={verifier} examples={list} />
        </div>
      </Card>
      <Card
        title={`Labelled examples (${list.length})`}
        description={examples.data ? `${good} good · ${list.length - good} bad` : undefined}
      >
        <QueryPlaceholder query={examples} />
        {examples.data && list.length === 0 && (
          <div className="card-body">
            <EmptyState title="No labelled examples yet" icon="inbox">
              Add responses you know are right (good) or wrong (bad), or keep one from the playground.
            </EmptyState>
          </div>
        )}
        {list.length > 0 && <ExamplesTable examples={list} onDelete={setDeleting} />}
      </Card>
      <Card title="Add an example">
        <div className="card-body">
          <AddExampleForm verifierId={verifier.id} familyKind={verifier.family_kind} />
        </div>
      </Card>
      {deleting && (
        <ConfirmDialog
          title={`Delete example #${deleting.id}?`}
          confirmLabel={remove.isPending ? "Deleting…" : "Delete example"}
          pending={remove.isPending}
          error={remove.error}
          onCancel={close}
          onConfirm={() => remove.mutate(deleting.id, { onSuccess: close })}
        >
          Later evaluations will not count it.
        </ConfirmDialog>
      )}
    </div>
  );
}
