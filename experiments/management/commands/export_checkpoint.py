"""``manage.py export_checkpoint <checkpoint id> <out dir> [--adapter-only] [--dtype auto|float32|bfloat16|float16]``: write a
checkpoint as a Hugging Face model directory (see ``experiments.services.exports``)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from rest_framework.exceptions import ValidationError

from experiments.models import Checkpoint
from experiments.services import exports
from training.export import EXPORT_DTYPE_CHOICES


class Command(BaseCommand):
    help = "Write a checkpoint as a Hugging Face model directory with a model card."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("checkpoint", type=int, help="The checkpoint's id.")
        parser.add_argument("out", help="The directory to write (empty or absent).")
        parser.add_argument(
            "--adapter-only",
            action="store_true",
            help="A LoRA checkpoint's adapter alone, instead of merged into its base.",
        )
        parser.add_argument(
            "--dtype",
            choices=EXPORT_DTYPE_CHOICES,
            default="auto",
            help="The weights' precision; auto (default): the one the base model shipped in.",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        checkpoint = (
            Checkpoint.objects.select_related("run__experiment", "run__team")
            .filter(pk=options["checkpoint"])
            .first()
        )
        if checkpoint is None:
            raise CommandError(f"no checkpoint {options['checkpoint']}")
        try:
            out = exports.export(
                checkpoint,
                options["out"],
                adapter_only=options["adapter_only"],
                dtype=options["dtype"],
            )
        except ValidationError as exc:
            raise CommandError(_reasons(exc.detail)) from exc
        self.stdout.write(f"exported checkpoint {checkpoint.pk} to {out}")


def _reasons(detail: Any) -> str:
    if isinstance(detail, dict):
        return "; ".join(f"{field}: {' '.join(map(str, why))}" for field, why in detail.items())
    return str(detail)
