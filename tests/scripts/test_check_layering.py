"""The layering check on small trees written for each case, and its command on this project."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "check_layering.py"
spec = importlib.util.spec_from_file_location("check_layering", SCRIPT)
assert spec is not None and spec.loader is not None
check_layering = importlib.util.module_from_spec(spec)
spec.loader.exec_module(check_layering)


def tree(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


@pytest.mark.parametrize(
    "line",
    [
        "from tasks_app.models import PoolJob",
        "from tasks_app import models",
        "import tasks_app.models.families",
    ],
)
def test_it_fails_when_experiments_reads_tasks_app_tables(tmp_path, line):
    root = tree(tmp_path, {"experiments/services/grading.py": f"{line}\n"})
    assert check_layering.violations(root) == [
        "experiments/services/grading.py imports tasks_app.models"
    ]


def test_it_lets_experiments_call_tasks_app_services_and_pure_code(tmp_path):
    code = (
        "from tasks_app.services import curricula, pool_jobs\n"
        "from tasks_app import verifiers\n"
        "from tasks_app.families.base import Task\n"
    )
    root = tree(tmp_path, {"experiments/services/sampling.py": code})
    assert check_layering.violations(root) == []


def test_it_fails_when_tasks_app_names_an_experiments_task(tmp_path):
    code = 'app.send_task("experiments.tasks.grade_pool_version", args=[1])\n'
    root = tree(tmp_path, {"tasks_app/services/jobs.py": code, "tasks_app/api/ok.py": '"ok"\n'})
    assert check_layering.violations(root) == [
        "tasks_app/services/jobs.py names experiments.tasks.grade_pool_version"
    ]


def test_it_still_keeps_django_out_of_the_engine(tmp_path):
    root = tree(tmp_path, {"training/engine.py": "from django.db import models\n"})
    assert check_layering.violations(root) == ["training/engine.py imports django"]


def test_it_lets_the_api_layers_use_the_engines_field_contract_but_not_the_engine(tmp_path):
    files = {
        "tasks_app/services/curriculum_config.py": "from training.field_spec import load\n",
        "crucible/api/dataclass_serializers.py": "from training.fields import RANGE\n",
        "tasks_app/api/curricula.py": "from training.config import GRPOConfig\n",
        "crucible/api/models.py": "from training import field_spec\n",
        "tasks_app/curriculum.py": "from training.field_spec import setting\n",
    }
    assert check_layering.violations(tree(tmp_path, files)) == [
        "tasks_app/curriculum.py imports training",
        "tasks_app/api/curricula.py imports training",
        "crucible/api/models.py imports training",
    ]


@pytest.mark.parametrize(
    "path, line",
    [
        ("experiments/services/registry.py", "from serving.services import deployments"),
        ("experiments/api/reports.py", "import serving.models"),
        ("tasks_app/services/pins.py", "from serving.models import Deployment"),
        ("crucible/health.py", "from serving import keepalive"),
    ],
)
def test_it_fails_when_a_lower_app_imports_serving(tmp_path, path, line):
    root = tree(tmp_path, {path: f"{line}\n"})
    assert check_layering.violations(root) == [f"{path} imports serving"]


def test_it_fails_when_experiments_names_a_serving_task(tmp_path):
    root = tree(tmp_path, {"experiments/services/x.py": 'send("serving.tasks.serve_replica")\n'})
    assert check_layering.violations(root) == [
        "experiments/services/x.py names serving.tasks.serve_replica"
    ]


def test_it_keeps_serving_services_one_way_relative_imports_included(tmp_path):
    root = tree(
        tmp_path,
        {
            "serving/services/routing.py": "from . import deployments\n",
            "serving/services/deployments.py": "from .canaries import end\n",
            "serving/services/canaries.py": "from . import deployments, routing\n",
        },
    )
    assert check_layering.violations(root) == [
        "serving/services/routing.py imports serving.services.deployments",
        "serving/services/deployments.py imports serving.services.canaries",
        "import cycle: serving.services.canaries -> serving.services.deployments"
        " -> serving.services.canaries",
    ]


def test_it_keeps_django_out_of_the_canary_analysis(tmp_path):
    code = "from django.conf import settings\nfrom .models import Canary\n"
    root = tree(tmp_path, {"serving/canary_analysis.py": code})
    assert check_layering.violations(root) == [
        "serving/canary_analysis.py imports django, serving.models"
    ]


@pytest.mark.parametrize(
    "line, named",
    [
        ("from experiments.services import runs", "experiments.services.runs"),
        ("import tasks_app.services.pinning", "tasks_app.services.pinning"),
        ("from ..models import Run", "experiments.models"),
        ("from . import runs", "experiments.services.runs"),
        ("from training.engine import train  # noqa: F401", "training.engine"),
    ],
)
def test_it_fails_on_an_import_of_our_code_inside_a_function(tmp_path, line, named):
    code = f"import json\n\n\ndef send(run_id):\n    {line}\n    return run_id\n"
    root = tree(
        tmp_path,
        {
            "experiments/services/workers.py": code,
            "experiments/services/runs.py": "",
            "experiments/models.py": "",
        },
    )
    assert check_layering.violations(root) == [
        f"experiments/services/workers.py:5 imports {named} inside a function"
    ]


def test_it_allows_a_local_import_in_ready_under_type_checking_or_saying_why(tmp_path):
    apps = (
        "from django.apps import AppConfig\n\n\n"
        "class ExperimentsConfig(AppConfig):\n"
        "    def ready(self):\n"
        "        from .services import workers\n"
    )
    light = (
        "from typing import TYPE_CHECKING\n\n\n"
        "def build(path):\n"
        "    import torch\n"
        "    from training.demo import cached_base  # torch loads only when building\n"
        "    if TYPE_CHECKING:\n"
        "        from training.models import Policy\n"
        "    return cached_base(path)\n"
    )
    root = tree(tmp_path, {"experiments/apps.py": apps, "experiments/catalogue.py": light})
    assert check_layering.violations(root) == []


def test_it_fails_on_an_import_cycle_naming_its_path(tmp_path):
    root = tree(
        tmp_path,
        {
            "experiments/services/__init__.py": "",
            "experiments/services/evaluation.py": "from . import training_job\n",
            "experiments/services/training_job.py": "from experiments.services import suites\n",
            "experiments/services/suites.py": "from .evaluation import Settings\n",
            "experiments/services/runs.py": "from . import suites\n",
        },
    )
    assert check_layering.violations(root) == [
        "import cycle: experiments.services.evaluation -> experiments.services.training_job"
        " -> experiments.services.suites -> experiments.services.evaluation"
    ]


def test_it_counts_only_the_imports_a_module_runs_when_it_loads(tmp_path):
    root = tree(
        tmp_path,
        {
            "tasks_app/services/pools.py": "from . import pool_jobs\n",
            "tasks_app/services/pool_jobs.py": (
                "from typing import TYPE_CHECKING\n\n"
                "if TYPE_CHECKING:\n"
                "    from .pools import Task\n\n\n"
                "def start(job):\n"
                "    from . import pools  # pools queues through this module\n"
            ),
        },
    )
    assert check_layering.violations(root) == []


def test_it_reads_from_a_package_a_name_its_init_defines_as_an_import_of_the_package(tmp_path):
    root = tree(
        tmp_path,
        {
            "tasks_app/verifiers/__init__.py": "from tasks_app.verifiers.runner import judge\n",
            "tasks_app/verifiers/runner.py": "from tasks_app.verifiers.layers import json_layers\n",
            "tasks_app/verifiers/safe_regex.py": "",
            "tasks_app/verifiers/layers/json_layers.py": (
                "from tasks_app.verifiers import safe_regex\n"  # a submodule: no cycle
                "from tasks_app.verifiers import judge\n"  # the package's own name: a cycle
            ),
        },
    )
    assert check_layering.violations(root) == [
        "import cycle: tasks_app.verifiers -> tasks_app.verifiers.runner"
        " -> tasks_app.verifiers.layers.json_layers -> tasks_app.verifiers"
    ]


@pytest.mark.parametrize(
    "path, line, bad",
    [
        ("experiments/stats.py", "from django.db import models", "django"),
        ("experiments/sizing.py", "from .models import Run", "experiments.models"),
        ("experiments/health.py", "from experiments.services import live", "experiments.services"),
        ("experiments/downsample.py", "from crucible.accounts.models import Team", "crucible"),
    ],
)
def test_it_keeps_django_out_of_the_pure_experiments_modules(tmp_path, path, line, bad):
    root = tree(tmp_path, {path: f"{line}\n", "experiments/stats_view.py": f"{line}\n"})
    assert check_layering.violations(root) == [f"{path} imports {bad}"]


def test_it_finds_nothing_about_serving_where_there_is_no_serving_package(tmp_path):
    root = tree(tmp_path, {"experiments/services/registry.py": "from . import runs\n"})
    assert not (root / "serving").exists()
    assert check_layering.violations(root) == []


def test_it_exits_non_zero_and_says_why_from_the_command_line(tmp_path):
    result = subprocess.run(
        [sys.executable, str(SCRIPT)], capture_output=True, text=True, check=False
    )
    problems = check_layering.violations()
    assert result.returncode == (1 if problems else 0)
    assert result.stdout.splitlines() == problems
