import { screen, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";

import { ME, mockApi, paginated } from "@/testing/mock-api";
import { renderApp } from "@/testing/render";

import { evaluationJob, REPORT_ROW } from "../testing/fixtures";

describe("Evaluation page", () => {
  it("shows the progress, the results per family and the reports that use it", async () => {
    const results = [
      { family: "f3", tasks: 50, k: 4, pass_at_1: 0.375, pass_at_k: 0.6, mean_turns: null, agreement: null },
      { family: "guess", tasks: 20, k: 4, pass_at_1: 0.5, pass_at_k: 0.9, mean_turns: 3.25, agreement: 0.75 },
    ];
    const { requests } = mockApi({
      "GET /api/v1/auth/me/": { body: ME },
      "GET /api/v1/evaluations/2/": { body: { ...evaluationJob(2, "sort run 3, step 40", [3]), results } },
      "GET /api/v1/reports/": { body: paginated([REPORT_ROW]) },
    });
    renderApp("/evaluations/2");
    expect(await screen.findByRole("heading", { name: "Evaluation 2: sort run 3, step 40" }, { timeout: 4000 })).toBeInTheDocument();
    expect(screen.getByRole("progressbar", { name: "Evaluation 2" })).toBeInTheDocument();
    const rows = within(screen.getByRole("table", { name: "Results per family" })).getAllByRole("row");
    expect(rows[0]).toHaveTextContent("Turns usedAgreement");
    expect(rows[1]).toHaveTextContent("f3v15037.5%60.0% (k = 4)––");
    // A family played as an environment: its episodes' mean turns and their agreement.
    expect(rows[2]).toHaveTextContent("guessv?2050.0%90.0% (k = 4)3.2575.0%");
    const reports = await screen.findByRole("table", { name: "Reports" });
    expect(within(reports).getByRole("link", { name: "sort run 3, step 40 vs tiny" })).toHaveAttribute("href", "/reports/12");
    expect(requests.find((r) => r.path === "/api/v1/reports/")?.search).toBe("?evaluation=2");
    expect(screen.getByRole("link", { name: "Compare" })).toHaveAttribute("href", "/reports/new?candidate=2");
  });

  it("says a running evaluation has no report yet and links its row from the reports page", async () => {
    mockApi({
      "GET /api/v1/auth/me/": { body: ME },
      "GET /api/v1/evaluations/": { body: paginated([evaluationJob(5, "tiny", [3], "running")]) },
      "GET /api/v1/reports/": { body: paginated([]) },
    });
    renderApp("/reports");
    const table = await screen.findByRole("table", { name: "Evaluations" }, { timeout: 4000 });
    expect(within(table).getByRole("link", { name: "tiny" })).toHaveAttribute("href", "/evaluations/5");
    for (const link of screen.getAllByRole("link", { name: "Compare evaluations" })) {
      expect(link).toHaveAttribute("href", "/reports/new");
    }
  });
});
