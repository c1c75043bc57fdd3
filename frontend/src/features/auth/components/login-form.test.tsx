import { screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it } from "vitest";

import { ME, mockApi, paginated } from "@/testing/mock-api";
import { renderApp } from "@/testing/render";

const ANONYMOUS = { status: 401, body: { errors: [{ field: null, code: "not_authenticated", message: "Not signed in." }] } };

describe("login", () => {
  it("shows the server's message when the password is wrong", async () => {
    const { requests } = mockApi({
      "GET /api/v1/auth/me/": ANONYMOUS,
      "POST /api/v1/auth/login/": {
        status: 400,
        body: {
          errors: [
            { field: null, code: "invalid_credentials", message: "Invalid username or password." },
          ],
        },
      },
    });
    renderApp("/login");
    const user = userEvent.setup();
    await user.type(await screen.findByLabelText("Username"), "ada");
    await user.type(screen.getByLabelText("Password"), "wrong");
    await user.click(screen.getByRole("button", { name: "Sign in" }));

    expect(await screen.findByRole("alert")).toHaveTextContent("Invalid username or password.");
    expect(requests.at(-1)).toMatchObject({
      method: "POST",
      path: "/api/v1/auth/login/",
      body: { username: "ada", password: "wrong" },
    });
  });

  it("goes to the page that asked for a sign-in once it succeeds", async () => {
    let signedIn = false;
    mockApi({
      "GET /api/v1/auth/me/": () => (signedIn ? { body: ME } : ANONYMOUS),
      "POST /api/v1/auth/login/": () => {
        signedIn = true;
        return { body: ME };
      },
      "GET /api/v1/tokens/": { body: paginated([]) },
    });
    const { router } = renderApp("/settings/tokens");
    const user = userEvent.setup();

    await user.type(await screen.findByLabelText("Username"), "ada");
    expect(router.state.location.pathname).toBe("/login");
    await user.type(screen.getByLabelText("Password"), "right");
    await user.click(screen.getByRole("button", { name: "Sign in" }));

    expect(await screen.findByRole("heading", { name: "API tokens" })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe("/settings/tokens");
  });
});
