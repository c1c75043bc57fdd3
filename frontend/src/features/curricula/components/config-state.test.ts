import { describe, expect, it } from "vitest";

import { configFromState, newEntry, shownConfigField, stateFromConfig } from "./config-state";

describe("curriculum config state", () => {
  it("shows an error beside its field for every field of the config, at any index", () => {
    for (const path of ["config.families", "config.families[3]", "config.families[12].initial", "config.band[1]", "config.window"]) {
      expect(shownConfigField(path), path).toBe(true);
    }
    for (const path of ["config", "config.families[0].levels[2]", "config.origin", "config.families[0].name"]) {
      expect(shownConfigField(path), path).toBe(false);
    }
  });

  it("sends every knob of the policy and a blank number as null, for the server to name", () => {
    const state = stateFromConfig(undefined);
    state.families = [{ ...newEntry(5), weight: " " }];
    expect(configFromState(state)).toEqual({
      families: [{ version: 5, weight: null }],
      band: [0.3, 0.7],
      floor: 0.05,
      window: 64,
      step: 0.2,
      dynamic: true,
    });
  });
});
