"""experiments.model_format: what a served format does otherwise than the training one."""

from __future__ import annotations

from experiments.model_format import FamilyFormat, ModelFormat, differences
from training import tiny_models
from training.prompting import CHAT as CHAT_KIND
from training.prompting import RAW_FORMAT, PromptFormat, prompt_encoding

SORT = FamilyFormat("digits", "sort {digits}=", "full_text", pool_version=3, verifier_version=4)
MATH = FamilyFormat("math", "Solve: {question}\nAnswer:", "final_answer")
TRAINED = ModelFormat(chat_template=None, add_special_tokens=False, families=(SORT,))


def test_it_matches_the_same_format_stated_in_full():
    served = {"family": "digits", "prompt_template": "sort {digits}=", "chat_template": None,
              "add_special_tokens": False, "extract": "full_text"}  # fmt: skip
    assert differences(TRAINED, served) == []


def test_what_is_not_stated_is_not_compared():
    assert differences(TRAINED, {"extract": "full_text"}) == []
    assert differences(TRAINED, {}) == []


def test_it_names_a_chat_template_the_model_never_saw():
    assert differences(TRAINED, {"chat_template": "chatml"}) == [
        "chat format differs: trained on the raw prompt (no chat template), "
        "served with chat template 'chatml'"
    ]
    chat = ModelFormat("chatml", False, (SORT,))
    assert differences(chat, {"chat_template": None}) == [
        "chat format differs: trained with chat template 'chatml', "
        "served on the raw prompt (no chat template)"
    ]


def test_it_names_special_tokens_added_only_when_serving():
    assert differences(TRAINED, {"add_special_tokens": True}) == [
        "special tokens differ: trained without the tokenizer's special tokens, served with them"
    ]


def test_it_says_where_two_templates_part():
    (found,) = differences(TRAINED, {"prompt_template": "sort these: {digits}="})
    assert found == (
        "prompt template differs: from character 6: trained 'sort {digits}=', "
        "served 'sort these: {digits}='"
    )


def test_a_long_template_is_quoted_around_the_difference_only():
    long = FamilyFormat("digits", "x" * 200 + "{digits}" + "y" * 100, "full_text")
    served = {"prompt_template": "x" * 200 + "{d}" + "y" * 100}
    (found,) = differences(ModelFormat(None, False, (long,)), served)
    assert "from character 203" in found and found.count("…") == 4
    assert len(found) < 260


def test_whitespace_alone_is_a_difference_and_said_so():
    (found,) = differences(TRAINED, {"prompt_template": "sort  {digits}="})
    assert found.startswith("prompt template differs: only in whitespace")


def test_it_names_another_extractor():
    assert differences(TRAINED, {"extract": "last_number"}) == [
        "answer extraction differs: trained with 'full_text', served with 'last_number'"
    ]


def test_every_difference_is_listed_in_order():
    served = {"chat_template": "llama-3", "prompt_template": "{digits}", "extract": "boxed"}
    found = differences(TRAINED, served)
    assert [f.split(":")[0] for f in found] == [
        "chat format differs",
        "prompt template differs",
        "answer extraction differs",
    ]


def test_a_family_the_model_never_trained_on_is_named():
    assert differences(TRAINED, {"family": "sql", "extract": "full_text"}) == [
        "family 'sql' is not one the model was trained on (digits)"
    ]


def test_with_several_families_the_family_must_be_stated_when_their_formats_differ():
    both = ModelFormat(None, False, (SORT, MATH))
    assert differences(both, {"extract": "final_answer"}) == [
        "family not stated: the model was trained on families with different formats (digits, math)"
    ]
    assert differences(both, {"family": "math", "extract": "final_answer"}) == []
    twins = ModelFormat(
        None, False, (SORT, FamilyFormat("digits-b", SORT.prompt_template, "full_text"))
    )
    assert differences(twins, {"extract": "full_text"}) == []


def test_a_dataset_taken_as_written_has_no_template():
    raw = ModelFormat(None, False, (FamilyFormat("gsm8k", None, "final_answer"),))
    (found,) = differences(raw, {"prompt_template": "Q: {question}"})
    assert found == (
        "prompt template differs: trained on the dataset's prompts as written, "
        "served with 'Q: {question}'"
    )
    assert differences(raw, {"prompt_template": None}) == []


def test_a_base_model_checks_the_encoding_only():
    base = ModelFormat(None, False)
    assert differences(base, {"prompt_template": "anything", "extract": "boxed"}) == []
    assert differences(base, {"chat_template": "chatml"})[0].startswith("chat format differs")


def test_a_format_round_trips_through_plain_data():
    both = ModelFormat(None, False, (SORT, MATH))
    data = both.to_dict()
    assert data["families"][0] == {"family": "digits", "prompt_template": "sort {digits}=",
                                   "extract": "full_text", "pool_version": 3,
                                   "verifier_version": 4}  # fmt: skip
    assert ModelFormat.from_dict(data) == both


CHAT = ModelFormat(
    "chatml",
    False,
    (SORT,),
    system_prompt="Sort the digits.",
    reasoning_tags=("<think>", "</think>"),
)


def test_a_raw_format_round_trips_as_versions_recorded_it():
    recorded = {"chat_template": None, "add_special_tokens": False, "families": []}
    assert ModelFormat.from_dict(recorded).to_dict() == recorded


def test_a_chat_format_round_trips_with_its_system_prompt_and_tags():
    data = CHAT.to_dict()
    assert data["system_prompt"] == "Sort the digits."
    assert data["reasoning_tags"] == ["<think>", "</think>"]
    assert ModelFormat.from_dict(data) == CHAT


def test_a_replica_generates_in_the_format_a_version_recorded():
    recorded = {"chat_template": None, "add_special_tokens": False, "families": []}
    assert ModelFormat.from_dict(recorded).prompt_format() == RAW_FORMAT
    assert CHAT.prompt_format() == PromptFormat(
        CHAT_KIND, "Sort the digits.", ("<think>", "</think>")
    )
    tokenizer = tiny_models.train_chat_tokenizer(tiny_models.corpus(200))
    encoding = prompt_encoding(PromptFormat(CHAT_KIND, "Be brief."), tokenizer)
    recorded = ModelFormat.from_encoding(encoding)
    assert recorded.chat_template == tiny_models.CHAT_TEMPLATE
    assert recorded.prompt_format() == PromptFormat(CHAT_KIND, "Be brief.")


def test_it_names_another_system_prompt_or_none():
    assert differences(CHAT, {"system_prompt": "Sort the digits."}) == []
    assert differences(CHAT, {"system_prompt": None}) == [
        "system prompt differs: trained with 'Sort the digits.', served with no system prompt"
    ]
    assert differences(TRAINED, {"system_prompt": "Be brief."}) == [
        "system prompt differs: trained with no system prompt, served with 'Be brief.'"
    ]


def test_it_names_other_reasoning_tags():
    assert differences(CHAT, {"reasoning_tags": ["<think>", "</think>"]}) == []
    assert differences(CHAT, {"reasoning_tags": ["<r>", "</r>"]}) == [
        "reasoning tags differ: trained with <think> </think>, served with <r> </r>"
    ]
    assert differences(TRAINED, {"reasoning_tags": ["<think>", "</think>"]}) == [
        "reasoning tags differ: trained without a reasoning section, served with <think> </think>"
    ]
