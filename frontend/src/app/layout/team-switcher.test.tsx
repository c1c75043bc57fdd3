import { screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it } from "vitest";

import { TEAM_STORAGE_KEY } from "@/lib/current-team";
import { ME, mockApi, paginated } from "@/testing/mock-api";
import { renderApp } from "@/testing/render";

function overviewApi() {
  return mockApi({
    "GET /api/v1/auth/me/": { body: ME },
    "GET /api/v1/audit/": { body: paginated([]) },
    "GET /healthz": { body: { status: "ok", checks: { database: { ok: true, detail: "" } } } },
  });
}

describe("team switcher", () => {
  it("lists the user's teams and scopes feature requests to the chosen one", async () => {
    const { requests } = overviewApi();
    renderApp("/");
    const user = userEvent.setup();

    const trigger = await screen.findByRole("button", { name: "Switch team" });
    expect(trigger).toHaveTextContent("Core");
    await waitFor(() => expect(requests.some((r) => r.search === "?team=core")).toBe(true));

    await user.click(trigger);
    const items = screen.getAllByRole("menuitemradio");
    expect(items.map((i) => i.textContent)).toEqual(["Coreadmin", "Evalseditor"]);
    expect(screen.getByRole("menuitemradio", { name: /Core/ })).toHaveAttribute("aria-checked", "true");

    await user.click(screen.getByRole("menuitemradio", { name: /Evals/ }));
    expect(screen.queryByRole("menu")).not.toBeInTheDocument();
    expect(trigger).toHaveTextContent("Evals");
    expect(window.localStorage.getItem(TEAM_STORAGE_KEY)).toBe("evals");
    await waitFor(() =>
      expect(requests.some((r) => r.path === "/api/v1/audit/" && r.search === "?team=evals")).toBe(true),
    );
  });

  it("starts from the stored team and falls back when the user left it", async () => {
    window.localStorage.setItem(TEAM_STORAGE_KEY, "evals");
    overviewApi();
    const first = renderApp("/");
    expect(await screen.findByRole("button", { name: "Switch team" })).toHaveTextContent("Evals");
    first.unmount();

    window.localStorage.setItem(TEAM_STORAGE_KEY, "gone");
    renderApp("/");
    expect(await screen.findByRole("button", { name: "Switch team" })).toHaveTextContent("Core");
  });

  it("sends anonymous visitors to the sign-in page", async () => {
    mockApi({ "GET /api/v1/auth/me/": { status: 403, body: { detail: "Not signed in." } } });
    const { router } = renderApp("/experiments");
    expect(await screen.findByRole("button", { name: "Sign in" })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe("/login");
    expect(router.state.location.search).toBe("?next=%2Fexperiments");
  });
});
