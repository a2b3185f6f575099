"""Exceptions raised by models run from Python.

A failure inside a model is raised as the model's own exception class (ValueError,
IndexError, RuntimeError, ...) mixed with :class:`ModelError`, so ``except ValueError`` and
``except symbolite.ModelError`` both catch it, and it carries where in the model it happened.
"""

import builtins

from ._symbolite import Error


class ModelError(Error):
    """A failure inside a model's code, with its place in the model.

    Attributes: ``debug_handle`` (int or None), ``module_hierarchy`` and ``traceback`` (str,
    None without debug info), ``python_class`` (the class the model raised, as PyTorch names
    it), ``model_message``, ``function``, ``instruction``, ``delegate_handle``, ``model_id``.
    """

    kind = "model"


_classes = {}


def _class_for(python_class):
    # "builtins.ValueError" (a model's raise) or "RuntimeError" (a kernel's failure).
    name = python_class.rsplit(".", 1)[-1]
    base = getattr(builtins, name, None)
    if not (isinstance(base, type) and issubclass(base, Exception)):
        base = RuntimeError
    if base not in _classes:
        try:
            _classes[base] = type(base.__name__, (ModelError, base), {"__module__": "symbolite"})
        except TypeError:  # a class whose instances are laid out differently (OSError, ...)
            _classes[base] = ModelError
    return _classes[base]


def raise_model_error(details, message):
    """Called by the compiled module when a run fails: raises the model's exception."""
    error = _class_for(details["python_class"])(message)
    error.model_message = details["message"]
    for key in ("python_class", "function", "instruction", "debug_handle", "delegate_handle",
                "model_id", "module_hierarchy", "traceback"):
        setattr(error, key, details[key])
    raise error
