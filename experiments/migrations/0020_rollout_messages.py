from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("experiments", "0019_evaluation_prompt_format"),
    ]

    operations = [
        migrations.AddField(
            model_name="rollout",
            name="messages",
            field=models.JSONField(
                blank=True,
                default=None,
                help_text=(
                    "Null for a single response; for an episode, the conversation in the chat "
                    "shape (role, content, tool_calls, tool_call_id, name), each assistant "
                    "message with its turn's verdict as 'verdict': {'error': null when the turn was fine, 'info'}."
                ),
                null=True,
            ),
        ),
    ]
