import type { LayerErrors } from "../lib/field-errors";
import { layerScope, type DraftLayer } from "../lib/spec";
import type { LayerKind, LayerSpec } from "../types";
import { ParamsForm } from "./params-form";
import { BiasedBadge, StageChip } from "./visuals";

/** For a layer with a `scope`: which text it checks, in words. */
function ScopeLine({ layer, kind, extractor }: { layer: DraftLayer; kind: LayerKind; extractor: string }) {
  const scope = layerScope(layer, kind.params_schema);
  if (!scope) return null;
  return (
    <div className="vf-layer-scope" data-testid="layer-scope">
      Checks{" "}
      {scope === "response" ? (
        <strong>the whole response</strong>
      ) : (
        <>
          <strong>only the extracted answer</strong> (extractor <span className="mono">{extractor}</span>)
        </>
      )}
      .
    </div>
  );
}

export function LayerCard({
  layer,
  index,
  count,
  kind,
  extractor,
  errors,
  onChange,
  onParam,
  onMove,
  onRemove,
}: {
  layer: DraftLayer;
  index: number;
  count: number;
  kind: LayerKind | undefined;
  extractor: string;
  errors: LayerErrors | undefined;
  onChange: (change: Partial<LayerSpec>) => void;
  onParam: (key: string, value: unknown) => void;
  onMove: (offset: -1 | 1) => void;
  onRemove: () => void;
}) {
  const stage = kind?.stage ?? "unknown";
  const id = `layer-${layer.uid}`;
  const hasErrors = Boolean(errors && (errors.layer.length || Object.keys(errors.params).length));
  return (
    <li
      className={`vf-layer vf-stage-${stage}${hasErrors ? " has-error" : ""}`}
      aria-label={`Layer ${index + 1}: ${layer.name}`}
      data-testid="layer-card"
    >
      <div className="vf-layer-head">
        <span className="vf-layer-index">{index + 1}</span>
        <label htmlFor={`${id}-name`} className="visually-hidden">
          Name of layer {index + 1}
        </label>
        <input
          id={`${id}-name`}
          className="input vf-layer-name"
          value={layer.name}
          onChange={(e) => onChange({ name: e.target.value })}
        />
        <span className="vf-layer-kind">{layer.kind}</span>
        <StageChip stage={stage} />
        {kind?.biased && <BiasedBadge />}
        <span className="vf-layer-tools">
          <button
            type="button"
            className="btn btn-ghost btn-sm"
            aria-label={`Move ${layer.name} up`}
            disabled={index === 0}
            onClick={() => onMove(-1)}
          >
            ↑
          </button>
          <button
            type="button"
            className="btn btn-ghost btn-sm"
            aria-label={`Move ${layer.name} down`}
            disabled={index === count - 1}
            onClick={() => onMove(1)}
          >
            ↓
          </button>
          <button type="button" className="btn btn-ghost btn-sm" aria-label={`Remove ${layer.name}`} onClick={onRemove}>
            ✕
          </button>
        </span>
      </div>
      <div className="vf-layer-body">
        {kind ? (
          <>
            <div className="vf-layer-desc">{kind.description}</div>
            <ScopeLine layer={layer} kind={kind} extractor={extractor} />
          </>
        ) : (
          <div className="alert alert-warning">Unknown layer kind “{layer.kind}”: the server will reject it.</div>
        )}
        {errors?.layer.map((message) => (
          <div key={message} className="field-error" role="alert">
            {message}
          </div>
        ))}
        <ParamsForm
          idPrefix={id}
          schema={kind?.params_schema ?? {}}
          params={layer.params}
          errors={errors?.params ?? {}}
          onChange={onParam}
        />
        <label className="vf-check" title="Later layers run only when earlier ones passed, unless this is on.">
          <input
            type="checkbox"
            checked={layer.continue_on_fail}
            onChange={(e) => onChange({ continue_on_fail: e.target.checked })}
          />
          Continue to later layers when this one fails
        </label>
      </div>
    </li>
  );
}
