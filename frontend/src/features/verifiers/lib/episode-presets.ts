// A sample episode per environment kind for the playground: a task (prompt and expected data)
// and a script of assistant turns that uses the tools, then answers.

export type EpisodePreset = { prompt: string; expected: Record<string, unknown>; script: string[] };

const FENCE = "```";

function call(tool: string, args: Record<string, string>): string {
  return `<tool_call>${JSON.stringify({ name: tool, arguments: args })}</tool_call>`;
}

const SCHEMA = [
  "CREATE TABLE employees (id INTEGER PRIMARY KEY, name TEXT NOT NULL, salary INTEGER NOT NULL);",
  "INSERT INTO employees VALUES (1, 'Ada', 61000), (2, 'Alan', 52000), (3, 'Grace', 79000);",
].join("\n");

const PRESETS: Record<string, EpisodePreset> = {
  "python-tool": {
    prompt: "A box holds 17 rows of 23 eggs. How many eggs are in the box?",
    expected: { answer: 391 },
    script: [call("python", { code: "print(17 * 23)" }), "The box holds 391 eggs.\n#### 391"],
  },
  "sql-tool": {
    prompt: "List the names of employees whose salary is above 60000.",
    expected: { schema_sql: SCHEMA, expected_rows: [["Ada"], ["Grace"]], ordered: false },
    script: [call("sql", { query: "SELECT name, salary FROM employees" }), `${FENCE}sql\nSELECT name FROM employees WHERE salary > 60000\n${FENCE}`],
  },
  "guess-number": {
    prompt: "guess 1-15?",
    expected: { answer: 5, low: 1, high: 15, max_turns: 4 },
    script: ["8", "4", "6", "5"],
  },
};

export function episodePresetFor(kind: string | undefined): EpisodePreset {
  return (kind && PRESETS[kind]) || { prompt: "", expected: {}, script: [""] };
}
