import { ErrorMessage } from "@/components/ui/error-message";

import { useCreateVersion } from "../api/create-version";
import type { Calibration } from "../types";
import { Stat } from "./evaluation-report";
import { JudgeStripPlot } from "./judge-strip-plot";
import { BiasedBadge, formatThreshold, percent } from "./visuals";

export function CalibrationReport({
  verifierId,
  latestNumber,
  calibration: c,
}: {
  verifierId: number;
  latestNumber: number | null;
  calibration: Calibration;
}) {
  const save = useCreateVersion(verifierId, latestNumber);
  const good = c.scores.filter((s) => s.label === "good").length;
  const bad = c.scores.length - good;
  return (
    <section className="card" aria-label={`Calibration of judge ${c.layer}`}>
      <div className="card-header">
        <div>
          <h2>
            Judge <span className="mono">{c.layer}</span> of version {c.version} <BiasedBadge />
          </h2>
          <div className="card-description">
            Model judges are biased: calibrate them against labelled examples. Threshold chosen on {c.examples}{" "}
            examples ({good} good, {bad} bad), accepting when P(yes) is at least the threshold.
          </div>
        </div>
      </div>
      <div className="card-body stack">
        <div className="vf-stats">
          <Stat label="Threshold" value={formatThreshold(c.threshold)} sub="fewest misjudged, then fewest false positives" />
          <Stat
            label="Judge false-positive rate"
            value={percent(c.false_positive_rate)}
            sub={`${c.false_positives} of ${bad} bad accepted`}
            tone={c.false_positives ? "bad" : "good"}
          />
          <Stat
            label="Judge false-negative rate"
            value={percent(c.false_negative_rate)}
            sub={`${c.false_negatives} of ${good} good rejected`}
            tone={c.false_negatives ? "bad" : "good"}
          />
          <Stat label="Judge accuracy" value={percent(c.accuracy)} sub="the judge layer alone" />
        </div>
        <JudgeStripPlot scores={c.scores} threshold={c.threshold} />
        <div className="row">
          <button
            type="button"
            className="btn btn-primary"
            disabled={save.isPending}
            onClick={() => save.mutate({ spec: c.spec, note: `judge calibrated at ${formatThreshold(c.threshold)}` })}
          >
            {save.isPending ? "Saving…" : "Save as new version"}
          </button>
          {save.data && (
            <span className="subtle" role="status">
              {save.data.created
                ? `Saved as version ${save.data.version.number}.`
                : `No change: the threshold is already in version ${save.data.version.number}.`}
            </span>
          )}
        </div>
        <ErrorMessage error={save.error} />
      </div>
    </section>
  );
}
