// Sample inputs for the playground, per family kind: a response that should pass and one
// that should not, with the expected answer the family's tasks carry.

export type Preset = {
  good: string;
  bad: string;
  expected: Record<string, unknown>;
  context?: Record<string, unknown>;
};

const FENCE = "```";

const PRESETS: Record<string, Preset> = {
  arithmetic: {
    good: "17 + 25 = 42.\nAnswer: 42",
    bad: "17 + 25 = 32.\nAnswer: 32",
    expected: { answer: "42" },
  },
  "math-word": {
    good: "Each box holds 12 eggs and there are 3 boxes, so 3 × 12 = 36.\nAnswer: 36",
    bad: "3 + 12 = 15.\nAnswer: 15",
    expected: { answer: "36" },
  },
  "string-ops": {
    good: "Sorted, the letters are:\nAnswer: abcd",
    bad: "Answer: dcba",
    expected: { answer: "abcd" },
  },
  "python-function": {
    good: `${FENCE}python\ndef add(a, b):\n    return a + b\n${FENCE}`,
    bad: `${FENCE}python\ndef add(a, b):\n    return a - b\n${FENCE}`,
    expected: {
      entry_point: "add",
      tests: "def check(candidate):\n    assert candidate(1, 2) == 3\n    assert candidate(-4, 4) == 0\n",
    },
  },
  "json-schema": {
    good: `${FENCE}json\n{"name": "Ada", "age": 36}\n${FENCE}`,
    bad: `${FENCE}json\n{"name": "Ada", "age": "thirty-six"}\n${FENCE}`,
    expected: {
      schema: {
        type: "object",
        properties: { name: { type: "string" }, age: { type: "integer" } },
        required: ["name", "age"],
      },
      facts: { name: "Ada", age: 36 },
    },
  },
  "sql-query": {
    good: `${FENCE}sql\nSELECT name FROM people WHERE age > 30 ORDER BY name;\n${FENCE}`,
    bad: `${FENCE}sql\nSELECT name FROM people;\n${FENCE}`,
    expected: {
      schema_sql:
        "CREATE TABLE people (name TEXT, age INTEGER);\nINSERT INTO people VALUES ('Ada', 36), ('Alan', 41), ('Grace', 29);",
      expected_rows: [["Ada"], ["Alan"]],
    },
  },
};

const FALLBACK: Preset = { good: "Answer: 42", bad: "Answer: 41", expected: { answer: "42" } };

export function presetFor(familyKind: string | undefined): Preset {
  return (familyKind && PRESETS[familyKind]) || FALLBACK;
}
