"""Helpers the kinds share: the prompt template a family may use, and exact-answer rows."""

import pytest

from tasks_app.families import arithmetic, common, python_function, string_ops

ROW = {"prompt": "What is 2 + 3? Reply with 'Answer: <number>'.", "answer": "5"}


def test_it_renders_an_imported_question_with_the_template_and_adds_nothing() -> None:
    task = arithmetic.from_record(ROW)
    assert task.prompt == arithmetic.prompt_template.format(question=ROW["prompt"])
    assert "Reply with the result as 'Answer: <result>'" not in task.prompt
    assert string_ops.from_record(ROW, template="Q: {question}").prompt == f"Q: {ROW['prompt']}"


def test_it_renders_generated_tasks_with_the_family_template_once() -> None:
    (task,) = arithmetic.generate(1, difficulty=1, seed=0, template="Work out {question}!")
    assert task.prompt.startswith("Work out ") and task.prompt.count("Work out") == 1
    assert "Compute" not in task.prompt and task.prompt.endswith("!")


@pytest.mark.parametrize(
    "template, problem",
    [
        ("Solve: {question}", None),
        ("Solve: {{literal}} {question}", None),
        ("Solve: {code}", "uses {code}; this kind fills {question}"),
        ("Solve: {question.__class__}", "uses {question.__class__}"),
        ("Solve: {question:>999999999}", "take no format or conversion"),
        ("Solve: {question!r}", "take no format or conversion"),
        ("Solve: {question", "is not a valid template"),
        ("Solve it.", "must use at least one of {question}"),
    ],
)
def test_it_says_why_a_template_cannot_stand_in_for_the_kinds(
    template: str, problem: str | None
) -> None:
    found = common.template_problem(template, arithmetic.prompt_template)
    assert found == problem if problem is None else problem in (found or "")


def test_it_allows_each_kind_only_its_own_placeholders() -> None:
    kind_template = python_function.prompt_template
    assert common.template_problem("{code}", kind_template) is None
    assert "fills {code}" in (common.template_problem("{question}", kind_template) or "")
