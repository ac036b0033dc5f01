"""The JSON Schema of a predictor for one card: every output is required,
variables are the card's inputs. Usable as an LLM structured-output schema
(recursive `$defs`, no unsupported keywords). Arity, node-count and depth
limits are enforced by the validator, not the schema. The ops are those of
the predictor language's table (`compiler/predictor_ops.py`).
"""

from __future__ import annotations

from .artifact import CompiledCardData
from .predictor_ops import OP_TABLE


def predictor_schema(data: CompiledCardData) -> dict:
    return predictor_schema_for([s.name for s in data.inputs], [o.name for o in data.outputs])


def predictor_schema_for(inputs: list[str], outputs: list[str]) -> dict:
    """The schema for a card with these input and output names."""
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "predictor",
        "description": "One expression tree per output: a number, {\"var\": INPUT}, or "
                       "{\"op\": OP, \"args\": [TREE, ...]}.",
        "type": "object",
        "properties": {name: {"$ref": "#/$defs/tree"} for name in outputs},
        "required": outputs,
        "additionalProperties": False,
        "$defs": {
            "tree": {"anyOf": [{"type": "number"}, {"$ref": "#/$defs/var"}, {"$ref": "#/$defs/op"}]},
            "var": {
                "type": "object",
                "properties": {"var": {"type": "string", "enum": inputs}},
                "required": ["var"],
                "additionalProperties": False,
            },
            "op": {
                "type": "object",
                "properties": {
                    "op": {"type": "string", "enum": sorted(OP_TABLE)},
                    "args": {"type": "array", "items": {"$ref": "#/$defs/tree"}, "minItems": 1},
                },
                "required": ["op", "args"],
                "additionalProperties": False,
            },
        },
    }
