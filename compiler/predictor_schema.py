"""The JSON Schema of a predictor for one card: every output is required,
variables are the card's inputs. Usable as an LLM structured-output schema
(recursive `$defs`, no unsupported keywords). Arity, node-count and depth
limits are enforced by the validator, not the schema.
"""

from __future__ import annotations

from .artifact import CompiledCardData

#: op -> (min args, max args or None): the predictor language of SPEC.md.
PREDICTOR_OPS: dict[str, tuple[int, int | None]] = {
    **{op: (2, None) for op in ("add", "mul", "min", "max")},
    **{op: (2, 2) for op in ("sub", "div", "pow", "atan2")},
    **{op: (1, 1) for op in ("neg", "abs", "sqrt", "cbrt", "exp", "log", "log10", "sin", "cos",
                              "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "step",
                              "sign", "round")},
}


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
                    "op": {"type": "string", "enum": sorted(PREDICTOR_OPS)},
                    "args": {"type": "array", "items": {"$ref": "#/$defs/tree"}, "minItems": 1},
                },
                "required": ["op", "args"],
                "additionalProperties": False,
            },
        },
    }
