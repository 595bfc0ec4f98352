"""Options a decorator adds to a command: the wrapper's signature, as typer reads it."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from typing import Annotated, Any


def add_keyword_options(fn: Callable[..., Any], wrapper: Callable[..., Any],
                        options: Mapping[str, tuple[Any, Any, Any]]) -> Callable[..., Any]:
    """Give ``wrapper`` the signature of ``fn`` plus keyword-only ``options`` (name ->
    (type, ``typer.Option``, default)), so typer shows and parses them and the wrapper
    receives them as keyword arguments to pop before calling ``fn``."""
    sig = inspect.signature(fn, eval_str=True)
    extra = [inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default,
                               annotation=Annotated[typ, opt])
             for name, (typ, opt, default) in options.items()]
    wrapper.__signature__ = sig.replace(  # type: ignore[attr-defined]
        parameters=[*sig.parameters.values(), *extra])
    return wrapper
