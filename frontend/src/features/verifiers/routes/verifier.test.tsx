import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it, vi } from "vitest";

import { ME, mockApi, paginated, type MockHandler } from "@/testing/mock-api";
import { renderApp } from "@/testing/render";

import {
  CALIBRATION,
  EVALUATION,
  EXAMPLES,
  KINDS,
  POOL_FAMILY,
  POOL_TASKS,
  POOL_VERSION,
  SANDBOX,
  SPEC_JUDGE,
  VERDICT,
  VERIFIER,
  versionOf,
} from "../testing-fixtures";

function verifierApi(extra: Record<string, MockHandler> = {}) {
  return mockApi({
    "GET /api/v1/auth/me/": { body: ME },
    "GET /api/v1/verifiers/1/": { body: VERIFIER },
    "GET /api/v1/verifier-kinds/": { body: KINDS },
    "GET /api/v1/sandbox/": { body: SANDBOX },
    "GET /api/v1/verifiers/1/versions/": { body: [versionOf(1)] },
    "GET /api/v1/verifiers/1/examples/": { body: EXAMPLES },
    "GET /api/v1/example-proposals/": { body: paginated([]) },
    ...extra,
  });
}

// The first query of a test waits for the app shell, the verifier and the catalogue to load.
const LOADED = { timeout: 5000 };

function layerNames() {
  return within(screen.getByRole("list", { name: "Layers" }))
    .getAllByTestId("layer-card")
    .map((card) => card.getAttribute("aria-label"));
}

describe("verifier builder", { timeout: 15_000 }, () => {
  it("adds, reorders and removes layers and saves the resulting spec", async () => {
    const { requests } = verifierApi({
      "POST /api/v1/verifiers/1/versions/": ({ body }) => ({
        status: 201,
        body: versionOf(2, (body as { spec: unknown }).spec, "tolerance"),
      }),
    });
    renderApp("/verifiers/1/builder");
    const user = userEvent.setup();

    await user.click(await screen.findByRole("button", { name: "Add numeric_match layer" }, LOADED));
    expect(layerNames()).toEqual(["Layer 1: parses", "Layer 2: tests", "Layer 3: numeric_match"]);
    expect(screen.getByText("unsaved draft")).toBeInTheDocument();

    await user.type(screen.getByLabelText("abs_tol"), "0.01");
    await user.click(screen.getByRole("button", { name: "Move numeric_match up" }));
    expect(layerNames()).toEqual(["Layer 1: parses", "Layer 2: numeric_match", "Layer 3: tests"]);

    await user.click(screen.getByRole("button", { name: "Remove parses" }));
    expect(layerNames()).toEqual(["Layer 1: numeric_match", "Layer 2: tests"]);

    await user.click(screen.getAllByRole("checkbox", { name: /Continue to later layers/ })[0]!);
    await user.selectOptions(screen.getByLabelText("Extractor"), "full_text");
    await user.type(screen.getByLabelText("Note for the new version"), "tolerance");
    await user.click(screen.getByRole("button", { name: "Save as new version" }));

    expect(await screen.findByText("Saved as version 2.")).toBeInTheDocument();
    const post = requests.find((r) => r.method === "POST");
    expect(post?.body).toEqual({
      note: "tolerance",
      spec: {
        extract: "full_text",
        layers: [
          { kind: "numeric_match", name: "numeric_match", params: { abs_tol: 0.01 }, continue_on_fail: true },
          { kind: "unit_tests", name: "tests", params: { timeout: 5, memory_mb: 256 }, continue_on_fail: false },
        ],
        reward: { weights: { outcome: 0.7, process: 0.3, constraint: 0, judge: 0 }, failure_reward: 0 },
      },
    });
  });

  it("shows a server field error at the layer and param it names, even after a reorder", async () => {
    verifierApi({
      "POST /api/v1/verifiers/1/versions/": {
        status: 400,
        body: {
          errors: [
            { field: "spec.layers[1].params.timeout", code: "invalid", message: "must be at most 120" },
            { field: "spec.reward.weights.outcome", code: "invalid", message: "must be a non-negative number" },
          ],
        },
      },
    });
    renderApp("/verifiers/1/builder");
    const user = userEvent.setup();

    await user.click(await screen.findByRole("button", { name: "Save as new version" }, LOADED));

    const tests = await screen.findByRole("listitem", { name: "Layer 2: tests" });
    expect(within(tests).getByRole("alert")).toHaveTextContent("must be at most 120");
    expect(within(tests).getByLabelText("timeout")).toHaveAttribute("aria-invalid", "true");
    const parses = screen.getByRole("listitem", { name: "Layer 1: parses" });
    expect(within(parses).queryByRole("alert")).not.toBeInTheDocument();
    expect(screen.getByLabelText("outcome weight")).toHaveAttribute("aria-invalid", "true");

    await user.click(screen.getByRole("button", { name: "Move tests up" }));
    const moved = screen.getByRole("listitem", { name: "Layer 1: tests" });
    expect(within(moved).getByRole("alert")).toHaveTextContent("must be at most 120");
  });

  it("says no change when the server returns the latest version", async () => {
    verifierApi({ "POST /api/v1/verifiers/1/versions/": { status: 200, body: versionOf(1) } });
    renderApp("/verifiers/1/builder");
    const user = userEvent.setup();

    await user.click(await screen.findByRole("button", { name: "Save as new version" }, LOADED));
    expect(await screen.findByText("No change: the spec is identical to version 1.")).toBeInTheDocument();
  });

  it("adds a layer at the end of its stage and warns when a move puts a layer out of stage order", async () => {
    verifierApi();
    renderApp("/verifiers/1/builder");
    const user = userEvent.setup();

    await user.click(await screen.findByRole("button", { name: "Add python_ast layer" }, LOADED));
    expect(layerNames()).toEqual(["Layer 1: parses", "Layer 2: python_ast", "Layer 3: tests"]);
    expect(screen.queryByRole("status", { name: "Layer order" })).not.toBeInTheDocument();

    await user.click(screen.getByRole("button", { name: "Move tests up" }));
    expect(screen.getByRole("status", { name: "Layer order" })).toHaveTextContent(
      "'python_ast' (syntax) runs after 'tests' (semantics): it is skipped whenever tests fails",
    );
    await user.click(screen.getByRole("button", { name: "Move tests down" }));
    expect(screen.queryByRole("status", { name: "Layer order" })).not.toBeInTheDocument();
  });

  it("says whether a forbidden layer checks the whole response or only the answer", async () => {
    verifierApi();
    renderApp("/verifiers/1/builder");
    const user = userEvent.setup();

    await user.click(await screen.findByRole("button", { name: "Add forbidden layer" }, LOADED));
    const forbidden = screen.getByRole("listitem", { name: "Layer 3: forbidden" });
    expect(within(forbidden).getByTestId("layer-scope")).toHaveTextContent("Checks the whole response.");
    expect(within(forbidden).queryByLabelText("target")).not.toBeInTheDocument();

    await user.selectOptions(within(forbidden).getByLabelText("scope"), "answer");
    expect(within(forbidden).getByTestId("layer-scope")).toHaveTextContent(
      "Checks only the extracted answer (extractor python_block).",
    );
  });

  it("marks a model judge layer as biased", async () => {
    verifierApi();
    renderApp("/verifiers/1/builder");
    const user = userEvent.setup();

    await user.click(await screen.findByRole("button", { name: "Add model_judge layer" }, LOADED));
    const judge = screen.getByRole("listitem", { name: "Layer 3: model_judge" });
    expect(within(judge).getByText("biased")).toBeInTheDocument();
    expect(within(judge).getByLabelText("model_path *")).toBeInTheDocument();
  });
});

describe("verifier playground", { timeout: 15_000 }, () => {
  it("runs the draft spec and shows each layer's verdict", async () => {
    const { requests } = verifierApi({ "POST /api/v1/verifiers/playground/": { body: VERDICT } });
    renderApp("/verifiers/1/playground");
    const user = userEvent.setup();

    expect(await screen.findByLabelText("Response", undefined, LOADED)).toHaveValue("```python\ndef add(a, b):\n    return a + b\n```");
    await user.click(screen.getByRole("button", { name: "Run" }));

    const rows = await screen.findAllByTestId("verdict-row");
    expect(rows).toHaveLength(4);
    expect(within(rows[1]!).getByRole("img", { name: "passed" })).toBeInTheDocument();
    expect(within(rows[2]!).getByRole("img", { name: "failed" })).toBeInTheDocument();
    expect(rows[2]).toHaveTextContent("wrong_answer");
    expect(rows[2]).toHaveTextContent("line 2: AssertionError");
    expect(rows[2]).toHaveTextContent("1/2 tests");
    expect(rows[2]).toHaveTextContent("12 ms");
    expect(within(rows[3]!).getByRole("img", { name: "skipped" })).toBeInTheDocument();
    expect(screen.getByRole("meter", { name: "process part" })).toHaveAttribute("aria-valuenow", "0.5");
    expect(screen.getByText("Failed")).toBeInTheDocument();

    const body = requests.find((r) => r.path === "/api/v1/verifiers/playground/")?.body as {
      spec: { extract: string };
      expected: { entry_point: string };
    };
    expect(body.spec.extract).toBe("python_block");
    expect(body.expected.entry_point).toBe("add");
    // Running the draft names no saved verifier: its versions are not asked for.
    expect(requests.filter((r) => /^\/api\/v1\/verifiers\/0\//.test(r.path))).toEqual([]);
  });

  function poolApi(extra: Record<string, MockHandler> = {}) {
    return verifierApi({
      "POST /api/v1/verifiers/playground/": { body: VERDICT },
      "GET /api/v1/families/": { body: paginated([POOL_FAMILY]) },
      "GET /api/v1/families/7/versions/": { body: paginated([POOL_VERSION]) },
      "GET /api/v1/pool-versions/70/tasks/": ({ search }) => {
        const page = Number(new URLSearchParams(search).get("page") ?? 1);
        const single = new URLSearchParams(search).get("page_size") === "1";
        const results = single ? POOL_TASKS.slice(page - 1, page) : POOL_TASKS;
        return { body: { ...paginated(results), count: POOL_TASKS.length } };
      },
      ...extra,
    });
  }

  async function chooseFamily(user: ReturnType<typeof userEvent.setup>) {
    await user.click(await screen.findByText("Load a real task from a pool version", undefined, LOADED));
    await user.selectOptions(screen.getByLabelText("Family"), "7");
    await screen.findByRole("option", { name: /#2 · level 2 · Complete the function second/ });
  }

  it("loads a real task of a pool version into the form and runs the draft on it", async () => {
    const { requests } = poolApi();
    renderApp("/verifiers/1/playground");
    const user = userEvent.setup();

    await chooseFamily(user);
    expect(requests.find((r) => r.path === "/api/v1/families/")?.search).toContain("team=core");
    expect(screen.getByLabelText("Pool version")).toHaveValue("70");
    await user.selectOptions(screen.getByLabelText("Task"), "701");
    await user.click(screen.getByRole("button", { name: "Load task" }));

    expect(screen.getByLabelText("Task prompt")).toHaveTextContent("Complete the function second.");
    expect(screen.getByTestId("loaded-task")).toHaveTextContent("Task #2 of HumanEval v3 · level 2 · train");
    expect(screen.getByLabelText("Response")).toHaveValue("");
    expect(screen.getByLabelText("Expected (JSON object)")).toHaveValue(JSON.stringify(POOL_TASKS[1]!.expected, null, 2));

    await user.type(screen.getByLabelText("Response"), "def second(x): return 1");
    await user.click(screen.getByRole("button", { name: "Run" }));
    await screen.findAllByTestId("verdict-row");
    const body = requests.find((r) => r.path === "/api/v1/verifiers/playground/")?.body as Record<string, unknown>;
    expect(body.expected).toEqual(POOL_TASKS[1]!.expected);
    expect(body.context).toEqual({ prompt: "Complete the function second." });
    expect(body.response).toBe("def second(x): return 1");
    expect(body.spec).toBeDefined();
  });

  it("draws a random task of the chosen version", async () => {
    const { requests } = poolApi();
    const random = vi.spyOn(Math, "random").mockReturnValue(0.9);
    renderApp("/verifiers/1/playground");
    const user = userEvent.setup();

    await chooseFamily(user);
    await user.click(screen.getByRole("button", { name: "Random task" }));

    expect(await screen.findByLabelText("Task prompt")).toHaveTextContent("Complete the function third.");
    const draw = requests.find((r) => r.search.includes("page_size=1"));
    expect(new URLSearchParams(draw?.search).get("page")).toBe("3");
    random.mockRestore();
  });

  it("runs a saved version by its id instead of the draft", async () => {
    const { requests } = poolApi({
      "GET /api/v1/verifiers/": { body: paginated([VERIFIER]) },
      "GET /api/v1/verifiers/1/versions/": { body: [versionOf(1), versionOf(2, undefined, "stricter")] },
    });
    renderApp("/verifiers/1/playground");
    const user = userEvent.setup();

    await user.click(await screen.findByRole("radio", { name: "a saved version" }, LOADED));
    expect(await screen.findByRole("option", { name: "v2 · stricter" })).toBeInTheDocument();
    await user.selectOptions(screen.getByLabelText("Version"), "1");
    expect(screen.getByText("Runs version 1 exactly as saved.")).toBeInTheDocument();
    await user.click(screen.getByRole("button", { name: "Run" }));

    await screen.findAllByTestId("verdict-row");
    const body = requests.find((r) => r.path === "/api/v1/verifiers/playground/")?.body as Record<string, unknown>;
    expect(body.verifier_version).toBe(1);
    expect(body).not.toHaveProperty("spec");
  });

  it("shows sandbox warnings loudly", async () => {
    verifierApi({
      "GET /api/v1/sandbox/": { body: { ...SANDBOX, seccomp: false, warnings: ["seccomp is unavailable"] } },
    });
    renderApp("/verifiers/1/playground");
    expect(await screen.findByText("seccomp is unavailable", undefined, LOADED)).toBeInTheDocument();
    expect(screen.getByText(/Sandbox isolation is reduced/)).toBeInTheDocument();
  });
});

describe("verifier examples", { timeout: 15_000 }, () => {
  it("evaluates a version and shows FP and FN rates, the confusion matrix and the misjudged", async () => {
    verifierApi({ "POST /api/v1/verifiers/1/versions/1/evaluate/": { body: EVALUATION } });
    renderApp("/verifiers/1/examples");
    const user = userEvent.setup();

    expect(await screen.findByRole("table", { name: "Labelled examples" }, LOADED)).toHaveTextContent("hard-coded");
    await user.click(screen.getByRole("button", { name: "Evaluate version 1" }));

    expect(await screen.findByRole("group", { name: "False-positive rate" })).toHaveTextContent("50.0%");
    expect(screen.getByRole("group", { name: "False-negative rate" })).toHaveTextContent("0.0%");
    expect(screen.getByRole("group", { name: "Accuracy" })).toHaveTextContent("75.0%");
    expect(screen.getByRole("cell", { name: "bad accepted" })).toHaveTextContent("1");
    expect(screen.getByRole("cell", { name: "good accepted" })).toHaveTextContent("2");
    expect(screen.getByRole("table", { name: "Misjudged examples" })).toHaveTextContent("#12");
  });

  it("shows a labelled turn of an episode as its conversation, the labelled turn marked", async () => {
    const turn = {
      id: 21,
      response: "print(1/0)",
      expected: {},
      label: "bad",
      note: "the tool call raised",
      messages: [
        { role: "user", content: "What is 6 x 7?" },
        { role: "assistant", content: "42", verdict: { error: null } },
        { role: "user", content: "Show your work." },
        { role: "assistant", content: "print(1/0)", verdict: { error: "tool_error" } },
      ],
      turn: 3,
      created_at: "2026-01-04T00:00:00Z",
    };
    verifierApi({ "GET /api/v1/verifiers/1/examples/": { body: [...EXAMPLES, turn] } });
    renderApp("/verifiers/1/examples");
    const user = userEvent.setup();

    const table = await screen.findByRole("table", { name: "Labelled examples" }, LOADED);
    await user.click(within(table).getByText("Turn 2 of an episode"));
    const episode = screen.getByRole("list", { name: "Episode of example 21" });
    expect(within(episode).getByRole("listitem", { name: "Turn 2" })).toHaveTextContent("labelled bad");
    expect(within(episode).getByRole("listitem", { name: "Turn 1" })).not.toHaveTextContent("labelled");
  });

  it("adds a labelled example", async () => {
    const { requests } = verifierApi({
      "POST /api/v1/verifiers/1/examples/": ({ body }) => ({ status: 201, body: { ...(body as object), id: 13, created_at: "2026-01-03T00:00:00Z" } }),
    });
    renderApp("/verifiers/1/examples");
    const user = userEvent.setup();

    await user.type(await screen.findByLabelText("Response", undefined, LOADED), "def add(a, b): return 0");
    await user.click(screen.getByRole("radio", { name: /bad/ }));
    await user.click(screen.getByRole("button", { name: "Add bad example" }));

    await waitFor(() => expect(requests.some((r) => r.method === "POST")).toBe(true));
    const body = requests.find((r) => r.method === "POST")?.body as { label: string; expected: { entry_point: string } };
    expect(body.label).toBe("bad");
    expect(body.expected.entry_point).toBe("add");
  });
});

describe("judge calibration", { timeout: 15_000 }, () => {
  function judgeApi(extra: Record<string, MockHandler> = {}) {
    return verifierApi({
      "GET /api/v1/verifiers/1/": { body: { ...VERIFIER, latest_version: versionOf(1, SPEC_JUDGE) } },
      "GET /api/v1/verifiers/1/versions/": { body: [versionOf(1, SPEC_JUDGE)] },
      ...extra,
    });
  }

  it("shows the threshold, the judge's FP/FN rates and one dot per example, then saves the calibrated spec", async () => {
    const { requests } = judgeApi({
      "POST /api/v1/verifiers/1/versions/1/calibrate/": { body: CALIBRATION },
      "POST /api/v1/verifiers/1/versions/": ({ body }) => ({
        status: 201,
        body: versionOf(2, (body as { spec: unknown }).spec, "judge calibrated at 0.615"),
      }),
    });
    renderApp("/verifiers/1/examples");
    const user = userEvent.setup();

    await user.click(await screen.findByRole("button", { name: "Calibrate judge" }, LOADED));

    expect(await screen.findByRole("group", { name: "Threshold" })).toHaveTextContent("0.615");
    expect(screen.getByRole("group", { name: "Judge false-positive rate" })).toHaveTextContent("50.0%");
    expect(screen.getByRole("group", { name: "Judge false-negative rate" })).toHaveTextContent("0.0%");
    expect(screen.getByText(/Model judges are biased: calibrate them against labelled examples/)).toBeInTheDocument();
    expect(screen.getByRole("img", { name: "P(yes) of 4 labelled examples, threshold 0.615" })).toBeInTheDocument();
    const dots = screen.getAllByTestId("judge-score");
    expect(dots.map((d) => d.getAttribute("data-label"))).toEqual(["good", "bad", "good", "bad"]);
    expect(requests.find((r) => r.path.endsWith("/calibrate/"))?.body).toEqual({});

    await user.click(screen.getByRole("button", { name: "Save as new version" }));
    expect(await screen.findByText("Saved as version 2.")).toBeInTheDocument();
    const save = requests.find((r) => r.method === "POST" && r.path === "/api/v1/verifiers/1/versions/");
    expect(save?.body).toEqual({ spec: CALIBRATION.spec, note: "judge calibrated at 0.615" });
  });

  it("lets the user pick among several judge layers and shows the server's message", async () => {
    const second = { kind: "model_judge", name: "style", params: { model_path: "/m" }, continue_on_fail: true };
    const spec = { ...SPEC_JUDGE, layers: [...SPEC_JUDGE.layers, second] };
    const { requests } = verifierApi({
      "GET /api/v1/verifiers/1/": { body: { ...VERIFIER, latest_version: versionOf(1, spec) } },
      "GET /api/v1/verifiers/1/versions/": { body: [versionOf(1, spec)] },
      "GET /api/v1/verifiers/1/examples/": { body: [] },
      "POST /api/v1/verifiers/1/versions/1/calibrate/": {
        status: 400,
        body: { errors: [{ field: "examples", code: "invalid", message: "add labelled examples (good and bad) before calibrating" }] },
      },
    });
    renderApp("/verifiers/1/examples");
    const user = userEvent.setup();

    await user.selectOptions(await screen.findByLabelText("Judge layer", undefined, LOADED), "style");
    await user.click(screen.getByRole("button", { name: "Calibrate judge" }));

    expect(await screen.findByRole("alert")).toHaveTextContent("add labelled examples (good and bad) before calibrating");
    expect(requests.find((r) => r.path.endsWith("/calibrate/"))?.body).toEqual({ layer: "style" });
  });

  it("offers no calibration without a model judge layer", async () => {
    verifierApi();
    renderApp("/verifiers/1/examples");
    await screen.findByRole("button", { name: "Evaluate version 1" }, LOADED);
    expect(screen.queryByRole("button", { name: "Calibrate judge" })).not.toBeInTheDocument();
  });
});

describe("verifier versions", { timeout: 15_000 }, () => {
  it("diffs two versions side by side", async () => {
    const v2 = versionOf(2, { ...versionOf(1).spec as object, extract: "full_text" }, "plain text");
    verifierApi({ "GET /api/v1/verifiers/1/versions/": { body: [versionOf(1), v2] } });
    renderApp("/verifiers/1/versions");

    const diff = await screen.findByRole("table", { name: "Spec diff" }, LOADED);
    const changed = diff.querySelectorAll('tr[data-diff="changed"]');
    expect(changed).toHaveLength(1);
    expect(changed[0]).toHaveTextContent('"extract": "python_block"');
    expect(changed[0]).toHaveTextContent('"extract": "full_text"');
    expect(screen.getByText("v1 → v2")).toBeInTheDocument();
  });
});
