"""A game state's JSON for the store, re-encoding only the fields a move replaced.

A copy-on-write game's ``apply`` shares every field it did not change with the state it was
given (and never mutates either), so a field that is the very same object as in the state
encoded last time has the same JSON as then. The text is byte for byte what
``state.model_dump_json()`` gives (tests/test_state_json.py checks it on every game), at a
fraction of the cost: a Café Carnage move replaces two or three of its twenty-odd fields.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import TypeAdapter

from games.engine import GameState

_Encoders = list[tuple[str, TypeAdapter[Any]]]


class StateJson:
    """Remembers, per session, the last state encoded and each field's JSON."""

    def __init__(self) -> None:
        self._encoders: dict[type[GameState], _Encoders] = {}
        self._last: dict[int, tuple[GameState, list[str]]] = {}

    def dump(self, session_id: int, state: GameState) -> str:
        encoders = self._encoders.get(type(state))
        if encoders is None:
            encoders = self._encoders[type(state)] = _field_encoders(type(state))
        last = self._last.get(session_id)
        values = state.__dict__
        parts: list[str] = []
        if last is not None and type(last[0]) is type(state):
            before, before_parts = last[0].__dict__, last[1]
            for i, (name, encoder) in enumerate(encoders):
                value = values[name]
                if value is before[name]:
                    parts.append(before_parts[i])
                else:
                    parts.append(_part(name, encoder, value))
        else:
            parts = [_part(name, encoder, values[name]) for name, encoder in encoders]
        self._last[session_id] = (state, parts)
        return "{" + ",".join(parts) + "}"

    def forget(self, session_id: int) -> None:
        self._last.pop(session_id, None)


def _part(name: str, encoder: TypeAdapter[Any], value: Any) -> str:
    return f'"{name}":{encoder.dump_json(value).decode()}'


def _field_encoders(model: type[GameState]) -> _Encoders:
    encoders: _Encoders = []
    for name, field in model.model_fields.items():
        if field.alias not in (None, name) or field.exclude:
            raise TypeError(f"{model.__name__}.{name}: aliased or excluded fields are not encoded")
        annotation: Any = field.annotation
        if field.metadata:  # e.g. a PlainSerializer: the field serialises as the model would
            annotation = Annotated[annotation, *field.metadata]
        encoders.append((name, TypeAdapter(annotation)))
    return encoders
