import { STAGES, type LayerKind } from "../types";
import { BiasedBadge, StageChip } from "./visuals";

/** Every layer kind, grouped by stage, each with what it checks and an Add button. */
export function LayerCatalogue({ kinds, onAdd }: { kinds: LayerKind[]; onAdd: (kind: LayerKind) => void }) {
  return (
    <ul className="vf-catalogue" aria-label="Layer kinds">
      {STAGES.map((stage) => {
        const group = kinds.filter((k) => k.stage === stage);
        if (group.length === 0) return null;
        return (
          <li key={stage} className={`vf-catalogue-group vf-stage-${stage}`}>
            <div className="vf-catalogue-heading">
              <StageChip stage={stage} />
            </div>
            <ul className="vf-catalogue">
              {group.map((kind) => (
                <li key={kind.kind} className="vf-catalogue-item">
                  <div>
                    <div className="row" style={{ gap: 6 }}>
                      <span className="mono">{kind.kind}</span>
                      {kind.biased && <BiasedBadge />}
                    </div>
                    <p>{kind.description}</p>
                  </div>
                  <button
                    type="button"
                    className="btn btn-sm"
                    aria-label={`Add ${kind.kind} layer`}
                    onClick={() => onAdd(kind)}
                  >
                    Add
                  </button>
                </li>
              ))}
            </ul>
          </li>
        );
      })}
    </ul>
  );
}
