"""The accelerate config files a run is launched with, per strategy, on one node or several."""

import pytest
import yaml
from accelerate.commands.launch import _validate_launch_command, launch_command_parser
from accelerate.utils import prepare_multi_gpu_env

from training.accelerate_config import accelerate_config, to_yaml


def test_it_writes_one_replica_per_process_for_ddp():
    config = accelerate_config("ddp", 4, port=29501)
    assert config["distributed_type"] == "MULTI_GPU"
    assert (config["num_processes"], config["num_machines"], config["machine_rank"]) == (4, 1, 0)
    assert config["mixed_precision"] == "bf16" and config["main_process_port"] == 29501
    assert "fsdp_config" not in config and "deepspeed_config" not in config


def test_it_shards_fully_with_fsdp_at_the_decoder_layer_keeping_full_state_dicts():
    fsdp = accelerate_config("fsdp", 8, layer_classes=["Qwen2DecoderLayer"])["fsdp_config"]
    assert fsdp["fsdp_sharding_strategy"] == "FULL_SHARD"
    assert fsdp["fsdp_auto_wrap_policy"] == "TRANSFORMER_BASED_WRAP"
    assert fsdp["fsdp_transformer_layer_cls_to_wrap"] == "Qwen2DecoderLayer"
    assert fsdp["fsdp_state_dict_type"] == "FULL_STATE_DICT"
    assert fsdp["fsdp_use_orig_params"] is True  # LoRA's frozen and trained weights share shards


def test_it_lets_accelerate_find_the_layer_when_none_is_named():
    fsdp = accelerate_config("fsdp", 2)["fsdp_config"]
    assert "fsdp_transformer_layer_cls_to_wrap" not in fsdp


@pytest.mark.parametrize("stage", [2, 3])
def test_it_configures_deepspeed_zero_stages(stage):
    config = accelerate_config("deepspeed", 2, zero_stage=stage)
    assert config["distributed_type"] == "DEEPSPEED"
    assert config["deepspeed_config"]["zero_stage"] == stage
    assert config["deepspeed_config"]["zero3_save_16bit_model"] is (stage == 3)


def test_it_writes_each_node_its_rank_and_the_main_node_address():
    nodes = [
        accelerate_config("fsdp", 16, machines=2, machine_rank=r, main_ip="10.0.0.1", port=29600)
        for r in (0, 1)
    ]
    assert [n["machine_rank"] for n in nodes] == [0, 1]
    assert all(n["num_processes"] == 16 and n["num_machines"] == 2 for n in nodes)
    assert all(n["main_process_ip"] == "10.0.0.1" for n in nodes)
    assert {k: v for k, v in nodes[0].items() if k != "machine_rank"} == {
        k: v for k, v in nodes[1].items() if k != "machine_rank"
    }


def test_it_turns_mixed_precision_off_on_the_cpu():
    assert accelerate_config("ddp", 2, on_gpu=False)["mixed_precision"] == "no"


def test_it_round_trips_through_yaml():
    config = accelerate_config("deepspeed", 4, zero_stage=3)
    assert yaml.safe_load(to_yaml(config)) == config


@pytest.mark.parametrize(
    ("strategy", "kwargs", "field", "reason"),
    [
        ("zero", {}, "strategy", "must be one of ddp, fsdp, deepspeed"),
        ("fsdp", {"on_gpu": False}, "strategy", "fsdp needs GPUs"),
        ("ddp", {"machines": 3}, "num_processes", "cannot be split evenly over 3"),
        ("ddp", {"machines": 2, "machine_rank": 2}, "machine_rank", "0..1"),
        ("ddp", {"machines": 2}, "main_process_ip", "main node's IP"),
        ("deepspeed", {"zero_stage": 1}, "zero_stage", "one of 2, 3"),
    ],
)
def test_it_refuses_what_cannot_be_launched(strategy, kwargs, field, reason):
    with pytest.raises(ValueError, match=f"^{field}: .*{reason}"):
        accelerate_config(strategy, 4, **kwargs)


def test_accelerate_launch_reads_the_file_as_the_fsdp_environment_of_the_ranks(tmp_path):
    # accelerate's own parsing, as `accelerate launch --config_file` runs it (no GPU needed).
    path = tmp_path / "accelerate.yaml"
    path.write_text(to_yaml(accelerate_config("fsdp", 2, layer_classes=["Qwen2DecoderLayer"])))
    args = launch_command_parser().parse_args([f"--config_file={path}", "-m", "training"])
    args, _, _ = _validate_launch_command(args)
    env = prepare_multi_gpu_env(args)
    assert args.use_fsdp and not args.multi_gpu
    assert env["ACCELERATE_MIXED_PRECISION"] == "bf16"
    assert env["FSDP_TRANSFORMER_CLS_TO_WRAP"] == "Qwen2DecoderLayer"
    assert env["FSDP_STATE_DICT_TYPE"] == "FULL_STATE_DICT"
    assert env["FSDP_USE_ORIG_PARAMS"] == "true"
