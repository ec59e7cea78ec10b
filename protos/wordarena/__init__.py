"""Package wordarena (proto package namespace)."""
