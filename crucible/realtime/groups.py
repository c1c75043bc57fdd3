"""Channel-layer group names: one place, shared by consumers and publishers."""


def team_group(team_id: int) -> str:
    return f"team.{team_id}"


def user_group(user_id: int) -> str:
    return f"user.{user_id}"
