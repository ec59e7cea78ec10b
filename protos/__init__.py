"""wordarena's public gRPC contract: the .proto files and the Python code generated from them."""
