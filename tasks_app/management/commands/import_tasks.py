"""``manage.py import_tasks TEAM FAMILY FILE [--map field=column ...] [--label text=level ...]``:
a file as a new version."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser
from rest_framework.exceptions import ValidationError
from tqdm import tqdm

from tasks_app.models import TaskFamily
from tasks_app.pools.importers import ImportRejected
from tasks_app.services import uploads


def parse_mapping(pairs: list[str]) -> dict[str, str]:
    mapping = {}
    for pair in pairs:
        field, sep, column = pair.partition("=")
        if not sep or not field or not column:
            raise CommandError(f"--map expects field=column, got {pair!r}")
        mapping[field] = column
    return mapping


def parse_labels(pairs: list[str]) -> dict[str, int]:
    labels = {}
    for pair in pairs:
        label, sep, level = pair.rpartition("=")
        if not sep or not label or not level.strip().isdigit():
            raise CommandError(f"--label expects label=level, got {pair!r}")
        labels[label] = int(level)
    return labels


class Command(BaseCommand):
    help = "Import a JSONL, CSV or Parquet file into a task family as a new immutable version."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("team", help="team slug")
        parser.add_argument("family", help="family slug")
        parser.add_argument("file", type=Path)
        parser.add_argument("--format", choices=["jsonl", "csv", "parquet"])
        parser.add_argument(
            "--map",
            action="append",
            default=[],
            metavar="FIELD=COLUMN",
            help="read the kind's FIELD from COLUMN (repeatable)",
        )
        parser.add_argument(
            "--label",
            action="append",
            default=[],
            metavar="LABEL=LEVEL",
            help="grade a text difficulty LABEL as LEVEL (repeatable); unmapped labels reject "
            "their rows",
        )
        parser.add_argument(
            "--mode",
            choices=["append", "replace"],
            help="add the tasks to the latest version's, or replace them "
            "(default: append when the family has a version)",
        )
        parser.add_argument("--as-is", action="store_true", help="keep prompts as uploaded")
        parser.add_argument("--no-near-duplicates", action="store_true")
        parser.add_argument("--note", default="")
        parser.add_argument("--user", help="recorded as the author (default: none)")

    def handle(self, *args: Any, **options: Any) -> None:
        family = TaskFamily.objects.filter(
            team__slug=options["team"], slug=options["family"]
        ).first()
        if family is None:
            raise CommandError(f"no family {options['family']!r} in team {options['team']!r}")
        path: Path = options["file"]
        if not path.exists():
            raise CommandError(f"no such file: {path}")
        user = (
            get_user_model().objects.filter(username=options["user"]).first()
            if options["user"]
            else None
        )
        bar = tqdm(desc="validating rows", unit=" rows", file=sys.stderr, disable=None)
        try:
            version, created = uploads.import_file(
                user,
                family,
                path,
                uploads.UploadOptions(
                    fmt=options["format"],
                    mapping=parse_mapping(options["map"]),
                    difficulty_labels=parse_labels(options["label"]),
                    prompt_mode="as_is" if options["as_is"] else "template",
                    mode=options["mode"],
                    near_duplicates=not options["no_near_duplicates"],
                ),
                note=options["note"],
                filename=path.name,
                progress=lambda rows: bar.update(rows - bar.n),
            )
        except ImportRejected as exc:
            lines = [str(exc)] + [f"  row {e.row}, {e.field}: {e.reason}" for e in exc.errors]
            raise CommandError("\n".join(lines)) from exc
        except ValidationError as exc:
            raise CommandError(str(exc.detail)) from exc
        finally:
            bar.close()
        verb = "created" if created else "unchanged, latest is"
        changes = version.source_detail.get("changes", {}) if created else {}
        if changes:
            self.stdout.write(
                f"{changes['mode']}: +{changes['added']} -{changes['removed']} "
                f"={changes['kept']} against the previous version"
            )
        self.stdout.write(
            f"{verb} {family.slug} v{version.number}: {version.task_count} tasks "
            f"({version.train_count} train, {version.held_out_count} held out), "
            f"{version.dedup.get('exact_duplicates', 0)} exact and "
            f"{version.dedup.get('near_duplicates', 0)} near duplicates removed"
        )
