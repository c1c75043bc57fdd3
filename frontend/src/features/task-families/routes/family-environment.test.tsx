import { screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it } from "vitest";

import { ME, mockApi, paginated } from "@/testing/mock-api";
import { renderApp } from "@/testing/render";

import type { FamilyKind } from "../api/types";
import { ARITHMETIC, FAMILY } from "../testing/fixtures";

const GUESS: FamilyKind = { ...ARITHMETIC, name: "guess-number", label: "Guess the number", params_schema: { type: "object", properties: {} } };
const GUESS_ENV = {
  name: "guess-number",
  label: "Guess the number (CPU demo)",
  description: "Higher or lower, within a budget of turns.",
  family: "guess-number",
  tools: [],
  default_limits: { max_turns: 7, max_tokens_per_turn: 4, max_total_tokens: 96 },
};
const SQL_ENV = { ...GUESS_ENV, name: "sql-tool", label: "SQL tool", family: "sql-query" };

describe("A family played as an environment", () => {
  it("offers the environments of its kind with their default limits and names a refused limit", async () => {
    const { requests } = mockApi({
      "GET /api/v1/auth/me/": { body: ME },
      "GET /api/v1/family-kinds/": { body: [GUESS] },
      "GET /api/v1/environment-kinds/": { body: [GUESS_ENV, SQL_ENV] },
      "GET /api/v1/families/": { body: paginated([]) },
      "POST /api/v1/families/": ({ body }) =>
        (body as { environment: { limits: { max_turns: number } } }).environment.limits.max_turns > 64
          ? { status: 400, body: { errors: [{ field: "environment.limits.max_turns", code: "invalid", message: "must be an integer from 1 to 64" }] } }
          : { status: 201, body: { ...FAMILY, ...(body as object), id: 9 } },
      "GET /api/v1/families/9/": { body: { ...FAMILY, id: 9, kind: "guess-number", environment: { kind: "guess-number", limits: { max_turns: 5, max_tokens_per_turn: 4, max_total_tokens: 96 } } } },
      "GET /api/v1/families/9/versions/": { body: paginated([]) },
    });
    const { router } = renderApp("/task-families");
    const user = userEvent.setup();

    await user.click(await screen.findByRole("button", { name: "New family" }, { timeout: 5000 }));
    await user.type(screen.getByLabelText("Name"), "Guesses");
    const playedAs = await screen.findByLabelText("Played as");
    // Only the environments that play this kind are offered.
    expect(screen.queryByRole("option", { name: "SQL tool" })).not.toBeInTheDocument();
    await user.selectOptions(playedAs, "guess-number");
    expect(screen.getByLabelText("Max turns")).toHaveValue(7);
    expect(screen.getByLabelText("Max total tokens")).toHaveValue(96);

    await user.clear(screen.getByLabelText("Max turns"));
    await user.type(screen.getByLabelText("Max turns"), "99");
    await user.click(screen.getByRole("button", { name: "Create family" }));
    expect(await screen.findByText("must be an integer from 1 to 64")).toBeInTheDocument();
    expect(screen.getByLabelText("Max turns")).toHaveAttribute("aria-invalid", "true");

    await user.clear(screen.getByLabelText("Max turns"));
    await user.type(screen.getByLabelText("Max turns"), "5");
    await user.click(screen.getByRole("button", { name: "Create family" }));
    await waitFor(() => expect(router.state.location.pathname).toBe("/task-families/9"));
    const posts = requests.filter((r) => r.method === "POST");
    expect(posts.at(-1)?.body).toMatchObject({
      kind: "guess-number",
      environment: { kind: "guess-number", limits: { max_turns: 5, max_tokens_per_turn: 4, max_total_tokens: 96 } },
    });
    expect(await screen.findByLabelText("How it is played")).toHaveTextContent("episodes of guess-number (≤ 5 turns");
  });
});
