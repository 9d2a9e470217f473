"""The rule systems shipped with fracas, one package each.

Each registers itself under the ``fracas.systems`` entry-point group
(pyproject.toml); the engine finds them there and never imports this package.
"""
