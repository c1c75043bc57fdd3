from typing import Any

from django.db import migrations, models

# Events written before the label existed often carried the name in their changes.
LABEL_KEYS = ("name", "user")


def label_past_events(apps: Any, schema_editor: Any) -> None:
    AuditEvent = apps.get_model("accounts", "AuditEvent")
    for key in LABEL_KEYS:
        events = AuditEvent.objects.filter(target_label="", changes__has_key=key)
        for event in events.iterator():
            value = event.changes.get(key)
            if isinstance(value, str) and value:
                event.target_label = value[:200]
                event.save(update_fields=["target_label"])


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0001_initial"),
    ]

    operations = [
        migrations.AddField(
            model_name="auditevent",
            name="target_label",
            field=models.CharField(blank=True, max_length=200),
        ),
        migrations.RunPython(label_past_events, migrations.RunPython.noop),
    ]
