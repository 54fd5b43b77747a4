"""A game state's JSON for the store, re-encoding only the fields a move replaced.

A copy-on-write game's ``apply`` shares every field it did not change with the state it was
given (and never mutates either), so a field that is the very same object as in the state
encoded last time has the same JSON as then. The text is byte for byte what
:func:`state_text` gives (tests/test_state_json.py checks it on every game), at a fraction of
the cost: a Café Carnage move replaces two or three of its twenty-odd fields.

The text is ASCII (``\\uXXXX`` escapes): the announcements' emoji and accents made the whole
state a four-byte-a-character string, widened at every join and encoded to UTF-8 again by
SQLite at every write; ASCII text is one byte a character and goes to SQLite as it is.

A list of records that only grows (the announcements, a game's round history) is a new list
at each round's end that holds the same records and one more: only the new ones are encoded,
after the text they had (a mid-game Café Carnage round's end encoded ~5 KB of them again, 40
µs).
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from itertools import compress, count
from typing import Annotated, Any, get_args, get_origin

from pydantic import BaseModel, TypeAdapter

from games.engine import GameState


def state_text(state: BaseModel) -> str:
    """A state's (or any model's) JSON as stored: pydantic's, in ASCII."""
    return state.model_dump_json(ensure_ascii=True)


class StateJson:
    """Remembers, per session, the last state encoded and each field's JSON."""

    def __init__(self) -> None:
        self._encoders: dict[type[GameState], _Fields] = {}
        self._last: dict[int, tuple[GameState, list[str]]] = {}

    def dump(self, session_id: int, state: GameState) -> str:
        fields = self._encoders.get(type(state))
        if fields is None:
            fields = self._encoders[type(state)] = _Fields(type(state))
        last = self._last.get(session_id)
        values = fields.values(state.__dict__)
        if last is not None and type(last[0]) is type(state):
            # Only the fields that are not the very objects encoded last time are visited (a
            # move replaces two or three of twenty-odd): found by C loops, not a Python one.
            before = fields.values(last[0].__dict__)
            parts = last[1].copy()
            encoders = fields.encoders
            for i in compress(count(), map(operator.is_not, values, before)):
                prefix, encoder, record = encoders[i]
                parts[i] = (
                    _part(prefix, encoder, values[i])
                    if record is None
                    else _grown(prefix, encoder, record, before[i], values[i], parts[i])
                )
        else:
            parts = [_part(p, e, v) for (p, e, _), v in zip(fields.encoders, values, strict=True)]
        self._last[session_id] = (state, parts)
        parts.append("}")
        text = "".join(parts)
        parts.pop()
        return text

    def forget(self, session_id: int) -> None:
        self._last.pop(session_id, None)


def _part(prefix: str, encoder: TypeAdapter[Any], value: Any) -> str:
    return prefix + encoder.dump_json(value, ensure_ascii=True).decode("ascii")


def _grown(
    prefix: str,
    encoder: TypeAdapter[Any],
    record: TypeAdapter[Any],
    old: list[Any],
    new: list[Any],
    old_part: str,
) -> str:
    """A list of records' part: when ``new`` starts with the very records of ``old``, its old
    text with the records added (a record's JSON is the same alone as in its list)."""
    n = len(old)
    if len(new) < n or any(map(operator.is_not, old, new)):
        return _part(prefix, encoder, new)
    added = ",".join(record.dump_json(r, ensure_ascii=True).decode("ascii") for r in new[n:])
    if not added:
        return old_part
    return old_part[:-1] + ("," if n else "") + added + "]"


class _Fields:
    """How a state type's fields are encoded: each field's prefix ('{"name":' for the first,
    ',"name":' for the others: a state's text is its parts joined, with its closing brace), its
    encoder, and for a list of records (pydantic models), the encoder of one record; and
    ``values``, the fields' values of a state's ``__dict__`` in their order."""

    def __init__(self, model: type[GameState]) -> None:
        self.encoders: list[tuple[str, TypeAdapter[Any], TypeAdapter[Any] | None]] = []
        names: list[str] = []
        for name, field in model.model_fields.items():
            if field.alias not in (None, name) or field.exclude:
                raise TypeError(
                    f"{model.__name__}.{name}: aliased or excluded fields are not encoded"
                )
            annotation: Any = field.annotation
            if field.metadata:  # e.g. a PlainSerializer: the field serialises as the model would
                annotation = Annotated[annotation, *field.metadata]
            prefix = ("," if names else "{") + f'"{name}":'
            item = get_args(annotation)[0] if get_origin(annotation) is list else None
            record = (
                TypeAdapter(item)
                if isinstance(item, type) and issubclass(item, BaseModel)
                else None
            )
            self.encoders.append((prefix, TypeAdapter(annotation), record))
            names.append(name)
        getter = operator.itemgetter(*names)
        # itemgetter of one name gives the value itself, of several a tuple of them
        self.values: Callable[[dict[str, Any]], tuple[Any, ...]] = (
            getter if len(names) > 1 else lambda d: (getter(d),)
        )
