"""Measuring one case on one device: eager, ONNX, torch.export, torch.compile, the dynamic-batch pass,
comparing outputs, graph breaks, and putting failures into words with where they happened."""
