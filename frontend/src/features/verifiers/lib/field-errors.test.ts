import { describe, expect, it } from "vitest";

import { mapSpecErrors } from "./field-errors";
import type { DraftLayer } from "./spec";

const layers: DraftLayer[] = [
  { uid: "a", kind: "regex", name: "r", params: {}, continue_on_fail: false },
  { uid: "b", kind: "numeric_match", name: "n", params: {}, continue_on_fail: false },
];

describe("mapSpecErrors", () => {
  it("files each error under its layer, param, spec field or the request as a whole", () => {
    const errors = mapSpecErrors(
      [
        { field: "spec.layers[1].params.abs_tol", code: "invalid", message: "must be a non-negative number" },
        { field: "spec.layers[0].kind", code: "invalid", message: "must be one of: regex" },
        { field: "spec.extract", code: "invalid", message: "unknown extractor" },
        { field: null, code: "invalid", message: "Bad request." },
      ],
      layers,
    );
    expect(errors.layers.b?.params).toEqual({ abs_tol: ["must be a non-negative number"] });
    expect(errors.layers.a?.layer).toEqual(["kind: must be one of: regex"]);
    expect(errors.fields).toEqual({ extract: ["unknown extractor"] });
    expect(errors.general).toEqual(["Bad request."]);
  });
});
