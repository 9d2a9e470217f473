"""The bundled scenarios, shipped as package data (``fracas scenarios`` lists them)."""
