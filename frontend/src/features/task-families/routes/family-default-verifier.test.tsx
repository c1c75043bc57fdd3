import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it } from "vitest";

import { ME, mockApi, paginated } from "@/testing/mock-api";
import { renderApp } from "@/testing/render";

import type { FamilyKind } from "../api/types";
import { ARITHMETIC, FAMILY, VERSION } from "../testing/fixtures";

const WITH_DEFAULT: FamilyKind = {
  ...ARITHMETIC,
  default_verifier: {
    extract: "final_answer_or_last_number",
    layers: [
      { kind: "numeric_match", name: "answer" },
      { kind: "forbidden", name: "no_refusal", params: { patterns: ["(?i)cannot"] } },
    ],
    reward: { weights: { outcome: 0.8, constraint: 0.2 } },
  },
};

function familyApi(extra: Parameters<typeof mockApi>[0] = {}) {
  return mockApi({
    "GET /api/v1/auth/me/": { body: ME },
    "GET /api/v1/family-kinds/": { body: [WITH_DEFAULT] },
    "GET /api/v1/families/3/": { body: FAMILY },
    "GET /api/v1/families/3/versions/": { body: paginated([VERSION]) },
    ...extra,
  });
}

describe("Family default verifier", { timeout: 15_000 }, () => {
  it("summarises the kind's default verifier and creates an editable verifier from it", async () => {
    const { requests } = familyApi({
      "POST /api/v1/verifiers/": { status: 201, body: { id: 42, name: "Arith verifier" } },
    });
    const { router } = renderApp("/task-families/3");
    const user = userEvent.setup();

    const card = (await screen.findByRole("heading", { name: "Default verifier" }, { timeout: 5000 })).closest("section")!;
    expect(within(card).getByText("final_answer_or_last_number")).toBeInTheDocument();
    const layers = within(card).getAllByRole("listitem");
    expect(layers.map((li) => li.textContent)).toEqual([
      "answer numeric_match",
      "no_refusal forbidden · checks the whole response",
    ]);
    expect(card).toHaveTextContent("outcome 0.8 · constraint 0.2");

    await user.click(within(card).getByRole("button", { name: "Create a verifier from this default" }));
    const post = requests.find((r) => r.method === "POST" && r.path === "/api/v1/verifiers/");
    expect(post?.body).toEqual({
      team: "core",
      name: "Arith verifier",
      family_kind: "arithmetic",
      description: "Started from the default verifier of the Arithmetic kind.",
    });
    await waitFor(() => expect(router.state.location.pathname).toBe("/verifiers/42/builder"));
  });

  it("shows no default verifier card for a kind that reports none", async () => {
    familyApi({ "GET /api/v1/family-kinds/": { body: [{ ...ARITHMETIC, default_verifier: undefined }] } });
    renderApp("/task-families/3");
    expect(await screen.findByRole("heading", { level: 1, name: "Arith" }, { timeout: 5000 })).toBeInTheDocument();
    expect(screen.queryByRole("heading", { name: "Default verifier" })).not.toBeInTheDocument();
  });
});
