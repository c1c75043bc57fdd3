"""The websocket protocol as the API's schema describes it (its ``description``): kept here,
next to the consumers, so the text and the code change together."""

SOCKET_PROTOCOL = """
## Websockets

Live updates come over websockets under `/ws/`: `/ws/events/` streams the events of the
caller's teams, `/ws/runs/<id>/` one run's metrics and state.

**Authentication.** A browser's socket uses its session cookie and must come from this site
(its `Origin` is checked). A script sends its API token as `Authorization: Bearer <token>`
or `?token=<token>`; a handshake without an `Origin` (most non-browser clients) is accepted
and authenticated by its token only, never by a cookie.

**Close codes.** `4401`: not authenticated, or the session or token ended (logout, password
change, revocation, expiry): do not reconnect without new credentials. `4403`: the object is
outside the caller's teams, or does not exist (also sent when access is lost while open).
Any other close (`1001`, `1006`, `1011`): reconnect with backoff, resuming with `?since=`.

**Frames of `/ws/runs/<id>/`** (JSON, server to client):
- `hello`: the socket is accepted.
- `history` `{seq, keys, points, run}`: everything so far, downsampled per key; it replaces
  what the client holds.
- `points` `{prev, seq, points, replaced?}`: the points written after `prev` up to `seq`,
  as columns per key (`step`, `value`, `wall_time`, `tokens`). Frames chain: each `prev` is
  the previous frame's `seq`; a `prev` past the client's last `seq` means a frame was missed,
  so send `{"type": "resume", "since": <last seq>}`.
- A point's identity is its key and step. A point the client already holds is replaced in
  place, never added twice. `replaced` (`{key: [step]}`) names the steps whose stored value
  changed (a step recomputed with another value); a point re-sent with its stored value is
  not stored again and never sent again, on the socket or by `GET .../metrics/?since=`.
- `run` `{run}`: the run's state or progress changed. `events` `{version}`: its events
  changed; read `GET /api/v1/runs/<id>/events/`.
- After an outage of the live channel (Redis) the socket stays open and, once it is back,
  sends what was missed (a `points` or `history` frame), then the run and its events.

**Client to server:** `{"type": "pause"}`, `{"type": "resume", "since": seq}`,
`{"type": "ping"}` (answered by `pong`). On connect, `?since=<seq>` asks for what came after
`seq` instead of the history, then the run as it is now (it may have ended meanwhile);
`?max_points=<n>` sets a history's points per key.
"""
