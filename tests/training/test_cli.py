import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_it_runs_a_yaml_file_end_to_end(tmp_path, base_dir):
    run_file = tmp_path / "run.yaml"
    run_file.write_text(
        f"algorithm: grpo\nmax_steps: 2\nprompts_per_step: 2\ngroup_size: 2\n"
        f"model: {{path: {base_dir}}}\nsampling: {{max_new_tokens: 12}}\n"
        f"task: {{name: sort_digits, held_out: 16}}\n"
    )
    out = subprocess.run(
        [sys.executable, "-m", "training", "run", str(run_file), "--out", str(tmp_path / "out")],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr
    summary = json.loads(out.stdout.strip().splitlines()[-1])
    assert summary["steps"] == 2 and 0 <= summary["held_out_success"] <= 1
    lines = (tmp_path / "out" / "metrics.jsonl").read_text().splitlines()
    assert [json.loads(line)["step"] for line in lines] == [1, 2]
    assert (tmp_path / "out" / "checkpoints" / "step-000002" / "state.json").exists()


def test_it_never_imports_django():
    code = "import sys, training.cli, training.algorithms; sys.exit(any(m.split('.')[0] in ('django', 'crucible', 'tasks_app', 'experiments') for m in sys.modules))"
    assert subprocess.run([sys.executable, "-c", code], cwd=REPO).returncode == 0


def test_it_runs_a_task_in_chat_format(tmp_path, tiny_build):
    run_file = tmp_path / "run.yaml"
    run_file.write_text(
        f"algorithm: grpo\nmax_steps: 1\nprompts_per_step: 2\ngroup_size: 2\n"
        f"model: {{path: {tiny_build('qwen2')}}}\nsampling: {{max_new_tokens: 4}}\n"
        "task: {name: sort_digits, held_out: 4, prompt_format: {kind: chat}}\n"
    )
    out = subprocess.run(
        [sys.executable, "-m", "training", "run", str(run_file), "--out", str(tmp_path / "out")],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr
    row = json.loads((tmp_path / "out" / "metrics.jsonl").read_text().splitlines()[0])
    assert "completions/reasoning_tokens" in row


def test_it_names_a_bad_prompt_format(tmp_path):
    run_file = tmp_path / "run.yaml"
    run_file.write_text("algorithm: grpo\ntask: {name: sort_digits, prompt_format: {kind: xml}}\n")
    out = subprocess.run(
        [sys.executable, "-m", "training", "run", str(run_file), "--out", str(tmp_path / "out")],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode != 0
    assert "task.prompt_format.kind: must be one of raw, chat" in out.stderr
