"""Reading and writing OpenVINO IR (model.xml + model.bin, versions 10 and 11)."""

from .reader import read_ir

__all__ = ["read_ir"]
