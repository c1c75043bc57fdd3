import { screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it } from "vitest";

import { ME, mockApi, paginated } from "@/testing/mock-api";
import { renderApp } from "@/testing/render";

import { KINDS, SANDBOX, VERIFIER } from "../testing-fixtures";

const FAMILY_KINDS = [
  { name: "arithmetic", label: "Arithmetic", description: "" },
  { name: "python-function", label: "Python functions", description: "" },
];

describe("verifiers list", { timeout: 15_000 }, () => {
  it("lists verifiers and creates one from a family kind's default spec", async () => {
    const { requests } = mockApi({
      "GET /api/v1/auth/me/": { body: ME },
      "GET /api/v1/verifiers/": { body: paginated([VERIFIER]) },
      "GET /api/v1/sandbox/": { body: SANDBOX },
      "GET /api/v1/family-kinds/": { body: FAMILY_KINDS },
      "GET /api/v1/verifier-kinds/": { body: KINDS },
      "POST /api/v1/verifiers/": { status: 201, body: { ...VERIFIER, id: 5, name: "Sums" } },
      "GET /api/v1/verifiers/5/": { body: { ...VERIFIER, id: 5, name: "Sums" } },
    });
    const { router } = renderApp("/verifiers");
    const user = userEvent.setup();

    expect(await screen.findByRole("link", { name: "Py fn" }, { timeout: 5000 })).toHaveAttribute("href", "/verifiers/1");
    expect(screen.getByText("All layers active")).toBeInTheDocument();
    expect(requests.find((r) => r.path === "/api/v1/verifiers/")?.search).toContain("team=core");

    await user.click(screen.getByRole("button", { name: "New verifier" }));
    await user.type(screen.getByLabelText("Name"), "Sums");
    await screen.findByRole("option", { name: /Arithmetic default/ });
    await user.selectOptions(screen.getByLabelText("Start from"), "arithmetic");
    await user.click(screen.getByRole("button", { name: "Create verifier" }));

    expect(await screen.findByRole("heading", { name: "Sums" })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe("/verifiers/5");
    expect(requests.find((r) => r.method === "POST")?.body).toEqual({
      name: "Sums",
      description: "",
      team: "core",
      family_kind: "arithmetic",
    });
  });
});
