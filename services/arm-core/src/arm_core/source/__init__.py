"""The source beside the data: the cells a row or a warning came from, as the recognition
service kept them (the core never parses a workbook itself)."""
