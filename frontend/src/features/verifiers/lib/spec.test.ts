import { describe, expect, it } from "vitest";

import { KINDS } from "../testing-fixtures";
import type { LayerKind } from "../types";
import { addLayer, layerScope, stageWarnings, toDraft, type Draft } from "./spec";

function kind(name: string): LayerKind {
  return KINDS.layers.find((k) => k.kind === name)!;
}

function layer(kindName: string, name = kindName, continueOnFail = false) {
  return { kind: kindName, name, params: {}, continue_on_fail: continueOnFail };
}

function draftOf(...layers: ReturnType<typeof layer>[]): Draft {
  return toDraft({ extract: "full_text", layers });
}

const names = (draft: Draft) => draft.layers.map((l) => l.name);

describe("addLayer", () => {
  it("puts a new layer at the end of its stage, not at the bottom", () => {
    const draft = draftOf(layer("python_ast", "parses"), layer("unit_tests", "tests"), layer("model_judge", "judge"));
    expect(names(addLayer(draft, kind("python_ast"), KINDS.layers))).toEqual(["parses", "python_ast", "tests", "judge"]);
    expect(names(addLayer(draft, kind("numeric_match"), KINDS.layers))).toEqual([
      "parses",
      "tests",
      "numeric_match",
      "judge",
    ]);
    expect(names(addLayer(draft, kind("forbidden"), KINDS.layers))).toEqual(["parses", "tests", "judge", "forbidden"]);
  });

  it("puts a syntax layer first when there is no syntax layer yet", () => {
    const draft = draftOf(layer("unit_tests", "tests"));
    expect(names(addLayer(draft, kind("python_ast"), KINDS.layers))).toEqual(["python_ast", "tests"]);
  });
});

describe("stageWarnings", () => {
  it("says a syntax layer below a semantic one is skipped whenever that one fails", () => {
    expect(stageWarnings([layer("unit_tests", "tests"), layer("python_ast", "parses")], KINDS.layers)).toEqual([
      "'parses' (syntax) runs after 'tests' (semantics): it is skipped whenever tests fails",
    ]);
  });

  it("has nothing to say about stage order, a layer that continues on failure or a constraint gate", () => {
    expect(stageWarnings([layer("python_ast"), layer("unit_tests"), layer("forbidden"), layer("model_judge")], KINDS.layers)).toEqual([]);
    expect(stageWarnings([layer("unit_tests", "tests", true), layer("python_ast")], KINDS.layers)).toEqual([]);
    expect(stageWarnings([layer("forbidden"), layer("python_ast"), layer("unit_tests")], KINDS.layers)).toEqual([]);
  });
});

describe("layerScope", () => {
  const schema = kind("forbidden").params_schema;

  it("checks the whole response unless scoped to the answer", () => {
    expect(layerScope(layer("forbidden"), schema)).toBe("response");
    expect(layerScope({ ...layer("forbidden"), params: { scope: "answer" } }, schema)).toBe("answer");
  });

  it("reads a stored spec's old target the way the server does", () => {
    expect(layerScope({ ...layer("forbidden"), params: { target: "extracted" } }, schema)).toBe("answer");
    expect(layerScope(layer("unit_tests"), kind("unit_tests").params_schema)).toBeNull();
  });
});
