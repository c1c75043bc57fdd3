"""Public data sets shipped with the product, each beside its licence.

- ``humaneval/HumanEval.jsonl.gz``: OpenAI's HumanEval, 164 Python problems with tests (MIT).
- ``gsm8k/test.jsonl``: the test split of OpenAI's GSM8K, 1,319 grade-school word problems (MIT).

They live inside the package so a clone or an installed wheel has them with no download.
"""

from pathlib import Path

DATASETS_DIR = Path(__file__).resolve().parent
HUMANEVAL_PATH = DATASETS_DIR / "humaneval" / "HumanEval.jsonl.gz"
GSM8K_PATH = DATASETS_DIR / "gsm8k" / "test.jsonl"
