import { describe, expect, it } from "vitest";

import { mockApi } from "@/testing/mock-api";

import { api, ApiError, isUnauthenticated, parseApiError } from "./api-client";

describe("parseApiError", () => {
  it("keeps every item of the API's error format", () => {
    const error = parseApiError(400, {
      errors: [
        { field: "name", code: "blank", message: "This field may not be blank." },
        { field: null, code: "invalid", message: "Something is off." },
      ],
    });
    expect(error).toBeInstanceOf(ApiError);
    expect(error.status).toBe(400);
    expect(error.message).toBe("This field may not be blank.");
    expect(error.messagesFor("name")).toEqual(["This field may not be blank."]);
    expect(error.messagesFor(null)).toEqual(["Something is off."]);
  });

  it("turns a bare DRF detail into one request-wide item", () => {
    const error = parseApiError(403, { detail: "You do not have permission." });
    expect(error.errors).toEqual([
      { field: null, code: "http_403", message: "You do not have permission." },
    ]);
  });

  it("copes with bodies that are not JSON objects", () => {
    expect(parseApiError(502, "<html>Bad gateway</html>").message).toBe(
      "Request failed with status 502",
    );
    expect(parseApiError(500, undefined).errors).toHaveLength(1);
    expect(parseApiError(400, { errors: [{ nope: true }] }).errors[0]?.code).toBe("http_400");
  });
});

describe("api", () => {
  it("sends the CSRF cookie on unsafe methods only", async () => {
    document.cookie = "csrftoken=abc123";
    const { requests } = mockApi({
      "GET /api/v1/tokens/": { body: [] },
      "POST /api/v1/tokens/": { status: 201, body: { id: 1 } },
    });
    await api.get("/api/v1/tokens/");
    await api.post("/api/v1/tokens/", { name: "ci" });
    expect(requests[0]?.headers["X-CSRFToken"]).toBeUndefined();
    expect(requests[1]?.headers["X-CSRFToken"]).toBe("abc123");
    expect(requests[1]?.body).toEqual({ name: "ci" });
  });

  it("uses the session cookie and builds query strings without empty values", async () => {
    const { requests, fetchMock } = mockApi({ "GET /api/v1/audit/": { body: [] } });
    await api.get("/api/v1/audit/", { team: "core", page: undefined, q: "" });
    expect(requests[0]?.search).toBe("?team=core");
    expect(fetchMock.mock.calls[0]?.[1]?.credentials).toBe("same-origin");
  });

  it("throws ApiError with the server's message and reads 204 as no body", async () => {
    mockApi({
      "POST /api/v1/auth/login/": {
        status: 400,
        body: { errors: [{ field: null, code: "invalid_credentials", message: "Wrong password." }] },
      },
      "DELETE /api/v1/tokens/1/": { status: 204 },
      "GET /api/v1/auth/me/": { status: 401, body: { errors: [] } },
    });
    await expect(api.post("/api/v1/auth/login/", {})).rejects.toMatchObject({
      status: 400,
      message: "Wrong password.",
      errors: [{ code: "invalid_credentials" }],
    });
    await expect(api.delete("/api/v1/tokens/1/")).resolves.toBeUndefined();
    const anonymous = await api.get("/api/v1/auth/me/").catch((e: unknown) => e);
    expect(isUnauthenticated(anonymous)).toBe(true);
  });

  it("tells a signed-out 403 from a forbidden one", () => {
    const signedOut = parseApiError(403, {
      errors: [{ field: null, code: "not_authenticated", message: "Sign in first." }],
    });
    const forbidden = parseApiError(403, {
      errors: [{ field: null, code: "permission_denied", message: "Admins only." }],
    });
    expect(isUnauthenticated(signedOut)).toBe(true);
    expect(isUnauthenticated(forbidden)).toBe(false);
  });
});
