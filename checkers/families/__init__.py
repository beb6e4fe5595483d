"""One module per theorem family: how each prediction of the family's theorems is observed."""
